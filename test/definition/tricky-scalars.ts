/** Strings whose values are not their source character for character: escapes, folds, CRLF, indicators. */
export const trickyScalars = `hook: |2
    a +
list:
  - key: |2
        x
  - key: |-
      y
crlf: |\r
  a = 1\r
  b +\r
folded: >
  a
  b +
escaped: "a\\tb +"
lines: a
  b +
quoted: 'a
  b'
doubled: 'it''s +'
`;
