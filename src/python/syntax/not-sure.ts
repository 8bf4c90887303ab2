/** A syntax error as CPython words it, at an offset in the cell's code. */
export interface KnownSyntaxError {
  /** CPython's message; `lineOf` gives the 1-based line of an offset, for a message that names one. */
  message: (lineOf: (offset: number) => number) => string;
  at: number;
  /** Where CPython also says it for a mistake of its parser's past this offset, and not before. */
  after?: number;
}

/**
 * Thrown where the CPython-free reading of a cell cannot vouch for what CPython would say: a syntax
 * error, or a construct left to CPython. The cell is then read by CPython itself, but for a syntax error
 * whose words and place are known to be CPython's (`known`).
 */
export class NotSure extends Error {
  constructor(readonly known?: KnownSyntaxError) {
    super();
  }
}
