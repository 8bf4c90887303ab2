/** Every command and subcommand of bass, as the words before `--help`: each help is checked in docs and at widths. */
export const everyCommand: readonly string[][] = [
  [],
  ["init"],
  ["list"],
  ["validate"],
  ["run"],
  ["test"],
  ["history"],
  ["history", "list"],
  ["history", "show"],
  ["history", "rerun"],
  ["history", "promote"],
  ["serve"],
  ["openapi"],
  ["mockcore"],
];
