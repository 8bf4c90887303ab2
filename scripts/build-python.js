// Puts what Python cells need beside the build: cells.py. The start-up snapshot is made on first use, per
// user (src/python/snapshot.ts).
import { copyFileSync, mkdirSync } from "node:fs";

mkdirSync("dist/python", { recursive: true });
copyFileSync("src/python/cells.py", "dist/python/cells.py");
