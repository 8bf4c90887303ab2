import { describe, expect, it } from "vitest";
import { createTempDir, runCli } from "../_helpers.js";

const env = { NO_COLOR: "1", PARTNER_KEY: "pk-live-0123456789", BASS_STATE_KEY: "7".repeat(64) };
const project = {
  "bass.config.yaml":
    "systems: {}\nvaults:\n  partners:\n    items:\n      acme: { limit: 100 }\n    secrets:\n      acme_key: ${env:PARTNER_KEY}\n",
};

describe("bass vault", () => {
  it("lists vaults and a vault's items, and its secrets' keys but never their values", async () => {
    const dir = createTempDir(project);
    expect((await runCli(["vault", "list"], { cwd: dir, env })).stdout).toBe("partners\n");
    const listed = await runCli(["vault", "list", "partners"], { cwd: dir, env });
    expect(JSON.parse(listed.stdout)).toEqual({
      items: { acme: { limit: 100 } },
      secrets: { acme_key: "XXXXXXXXXXXX" },
    });
    expect(listed.stdout + listed.stderr).not.toContain(env.PARTNER_KEY);
  });

  it("sets items as JSON or text, a secret from standard input, gets and deletes them", async () => {
    const dir = createTempDir(project);
    expect(
      (await runCli(["vault", "set", "partners", "globex", '{"limit":5}'], { cwd: dir, env })).code,
    ).toBe(0);
    expect((await runCli(["vault", "set", "partners", "note", "plain words"], { cwd: dir, env })).code).toBe(
      0,
    );
    const secret = await runCli(["vault", "set", "partners", "globex_key", "-", "--secret"], {
      cwd: dir,
      env,
      stdin: "gx-secret-424242\n",
    });
    expect(secret.code).toBe(0);
    expect(
      JSON.parse((await runCli(["vault", "get", "partners", "globex"], { cwd: dir, env })).stdout),
    ).toEqual({
      limit: 5,
    });
    expect((await runCli(["vault", "get", "partners", "note"], { cwd: dir, env })).stdout).toBe(
      '"plain words"\n',
    );
    const listed = await runCli(["vault", "list", "partners"], { cwd: dir, env });
    expect(JSON.parse(listed.stdout).secrets).toEqual({
      acme_key: "XXXXXXXXXXXX",
      globex_key: "XXXXXXXXXXXX",
    });
    expect(listed.stdout).not.toContain("gx-secret-424242");
    await runCli(["vault", "delete", "partners", "globex"], { cwd: dir, env });
    const gone = await runCli(["vault", "get", "partners", "globex"], { cwd: dir, env });
    expect([gone.code, gone.stderr]).toEqual([1, 'bass: vault partners holds no item "globex"\n']);
  });

  it("refuses a vault name that is no file name", async () => {
    const dir = createTempDir(project);
    const refused = await runCli(["vault", "get", "../etc", "x"], { cwd: dir, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('"../etc" is not a vault name');
  });
});

describe("bass test and the vaults", () => {
  it("runs cases against vaults seeded afresh, and leaves the project's vaults as they were", async () => {
    const dir = createTempDir({
      ...project,
      "integrations/bump.yaml":
        "name: bump\non_success_hook: |\n  const vault = await open_vault('partners')\n  const acme = vault.get('acme')\n  vault.update('acme', { limit: acme.limit + 1 })\n  output.payload = vault.get('acme')\n",
      "tests/bump.test.yaml":
        "integration: bump\ncases:\n  - name: bumps from the seed\n    expect: { output: { payload: { limit: 101 } } }\n",
    });
    await runCli(["vault", "set", "partners", "acme", '{"limit":500}'], { cwd: dir, env });
    for (const round of [1, 2])
      expect((await runCli(["test"], { cwd: dir, env })).code, `round ${round}`).toBe(0);
    expect(
      JSON.parse((await runCli(["vault", "get", "partners", "acme"], { cwd: dir, env })).stdout),
    ).toEqual({
      limit: 500,
    });
  });
});
