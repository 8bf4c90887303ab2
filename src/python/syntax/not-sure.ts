/**
 * Thrown where the CPython-free reading of a cell cannot vouch for what CPython would say: a syntax
 * error, or a construct left to CPython. The cell is then read by CPython itself.
 */
export class NotSure extends Error {}
