import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runIntegration } from "../../src/engine/run.js";
import type { RunInput } from "../../src/engine/types.js";
import { createProjectAdapters } from "../../src/project/adapters.js";
import { openProjectFiles } from "../../src/project/open-files.js";
import { projectVaults } from "../../src/project/vaults.js";
import { createTempDir, runCli } from "../_helpers.js";

const env = { PARTNER_KEY: "pk-live-0123456789", BASS_STATE_KEY: "7".repeat(64) };

/** A project of `files` whose runs share one vault store, as the runs of one bass process do. */
async function createProject(files: Record<string, string>) {
  const dir = createTempDir({
    "bass.config.yaml": `systems:\n  slow:\n    adapter: ./slow.mjs\nvaults:\n  partners:\n    items:\n      acme: { limit: 100 }\n    secrets:\n      acme_key: \${env:PARTNER_KEY}\n`,
    "slow.mjs":
      "export async function execute() {\n  await new Promise((resolve) => setTimeout(resolve, 600));\n  return { success: true, status: 200, payload: {}, messages: [] };\n}\n",
    ...files,
  });
  const { project } = openProjectFiles({ cwd: dir, env });
  const adapters = createProjectAdapters(project);
  const resolve = await adapters.resolverFor({ kind: "live" });
  const vaults = projectVaults(project, env);
  const run = (name: string, input: RunInput = { payload: {} }) => {
    const loaded = project.definitions.find((definition) => definition.value.name === name);
    if (!loaded) throw new Error(`no ${name}`);
    return runIntegration(project.compile(loaded), input, {
      ...project.limits,
      adapters: resolve,
      trigger: "cli",
      secrets: project.secrets,
      vaults,
    });
  };
  return { dir, run, close: () => adapters.close() };
}

const failureCodes = (items: { kind: string; error?: { code: string } }[]) =>
  items.flatMap((item) => (item.kind === "FAILURE" && item.error ? [item.error.code] : []));

describe("open_vault", () => {
  it("gets, inserts, updates, upserts and deletes items, and later runs see the changes", async () => {
    const { run, dir, close } = await createProject({
      "integrations/limits.yaml": `name: limits
on_success_hook: |
  const vault = await open_vault('partners')
  const before = vault.get('acme')
  vault.update('acme', { limit: before.limit + 1 })
  vault.upsert('globex', { limit: 5 })
  vault.delete('globex')
  let refused = ''
  try { vault.insert('acme', {}) } catch (error) { refused = error.message }
  output.payload = { before, after: vault.get('acme'), missing: vault.get('globex'), refused }
`,
    });
    const first = await run("limits");
    expect(first.output.payload).toEqual({
      before: { limit: 100 },
      after: { limit: 101 },
      missing: null,
      refused: 'vault partners: insert refuses a key it holds: "acme"',
    });
    // The seed is written only for a key the vault does not hold: the change survives.
    const second = await run("limits");
    expect((second.output.payload as { before: unknown }).before).toEqual({ limit: 101 });
    const file = join(dir, ".bass", "vaults", "partners.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await close();
  });

  it("keeps secrets sealed in its file and masks them by value in every record once read", async () => {
    const { run, dir, close } = await createProject({
      "integrations/signer.yaml": `name: signer
on_success_hook: |
  const vault = await open_vault('partners')
  const key = vault.get_secret('acme_key')
  vault.upsert_secret('rotated', 'rk-9876543210')
  output.payload = { header: 'Key ' + key, length: key.length, rotated: vault.get_secret('rotated') }
`,
    });
    const result = await run("signer");
    expect(result.output.payload).toEqual({
      header: `Key ${env.PARTNER_KEY}`,
      length: env.PARTNER_KEY.length,
      rotated: "rk-9876543210",
    });
    const recorded = JSON.stringify(result.record);
    expect(recorded).not.toContain(env.PARTNER_KEY);
    expect(recorded).not.toContain("rk-9876543210");
    const file = readFileSync(join(dir, ".bass", "vaults", "partners.json"), "utf8");
    expect(file).not.toContain(env.PARTNER_KEY);
    expect(file).not.toContain("rk-9876543210");
    expect(JSON.parse(file).secrets.acme_key).toMatch(/^v1\./);
    await close();
  });

  it("refuses to keep a value the run masks as an item, in clear", async () => {
    const { run, dir, close } = await createProject({
      "integrations/leaky.yaml": `name: leaky
on_success_hook: |
  const vault = await open_vault('partners')
  let refused = ''
  try { vault.upsert('copy', { key: vault.get_secret('acme_key') }) } catch (error) { refused = error.message }
  output.payload = { refused }
`,
    });
    const result = await run("leaky");
    expect(result.output.payload).toEqual({
      refused: 'vault partners: item "copy" would hold a value the run masks; keep it with upsert_secret',
    });
    expect(readFileSync(join(dir, ".bass", "vaults", "partners.json"), "utf8")).not.toContain(
      env.PARTNER_KEY,
    );
    await close();
  });

  it("is let go when the cell that opened it ends", async () => {
    const { run, close } = await createProject({
      "integrations/keeper.yaml": `name: keeper
before_hook: "keep({ vault: await open_vault('partners') })"
on_success_hook: "output.payload = vault.get('acme')"
`,
    });
    const result = await run("keeper");
    const failure = result.record.items.find((item) => item.kind === "FAILURE");
    expect(failure?.kind === "FAILURE" && failure.error.message).toContain(
      "vault partners was let go when the cell that opened it ended",
    );
    await close();
  });

  it("holds the vault for one run at a time: one that waits past its cell limit fails with vault_busy", async () => {
    const { run, close } = await createProject({
      "integrations/holder.yaml": `name: holder
on_success_hook: |
  const vault = await open_vault('partners')
  await calladapter('slow', 'wait', {})
  output.payload = vault.get('acme')
`,
      // Its run may take 200 ms: its before_hook can wait no longer than that.
      "integrations/waiter.yaml": `name: waiter
timeout_ms: 200
before_hook: |
  const vault = await open_vault('partners')
  keep({ got: vault.get('acme') })
on_success_hook: "output.payload = got"
`,
    });
    const holding = run("holder");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const waiting = await run("waiter");
    expect(failureCodes(waiting.record.items)).toEqual(["vault_busy"]);
    expect((await holding).output.payload).toEqual({ limit: 100 });
    // Once the holder's cell ended, the vault is free again.
    expect((await run("waiter")).output.payload).toEqual({ limit: 100 });
    await close();
  }, 10_000);
});

describe("bass validate on open_vault", () => {
  it("finds a vault the project file does not seed, when it seeds vaults", async () => {
    const definition = "name: typo\non_success_hook: |\n  const vault = await open_vault('partnrs')\n";
    const seeding = createTempDir({
      "bass.config.yaml": "systems: {}\nvaults:\n  partners: {}\n",
      "integrations/typo.yaml": definition,
    });
    const found = await runCli(["validate", "--format", "json"], { cwd: seeding });
    expect(JSON.parse(found.stdout).findings).toEqual([
      expect.objectContaining({
        line: 3,
        column: 34,
        rule: "unknown-vault",
        message: 'on_success_hook: the project file seeds no vault "partnrs"; known: "partners"',
      }),
    ]);
    const silent = createTempDir({
      "bass.config.yaml": "systems: {}\n",
      "integrations/typo.yaml": definition,
    });
    expect((await runCli(["validate"], { cwd: silent })).code).toBe(0);
  });
});

describe("secrets across callint", () => {
  it("masks in the parent's record what its child read as a secret", async () => {
    const dir = createTempDir({
      "bass.config.yaml":
        "systems: {}\nvaults:\n  partners:\n    secrets:\n      acme_key: ${env:PARTNER_KEY}\n",
      "integrations/child.yaml":
        "name: child\non_success_hook: |\n  const vault = await open_vault('partners')\n  output.payload = { key: vault.get_secret('acme_key') }\n",
      "integrations/parent.yaml":
        "name: parent\non_success_hook: \"output.payload = (await callint('child', {})).payload\"\n",
    });
    const run = await runCli(["run", "parent", "--json"], { cwd: dir, env: { ...env, NO_COLOR: "1" } });
    expect(run.code).toBe(0);
    const history = await runCli(["history", "--json"], { cwd: dir, env: { ...env, NO_COLOR: "1" } });
    expect(history.stdout).not.toContain(env.PARTNER_KEY);
    expect(run.stdout).not.toContain(env.PARTNER_KEY);
    expect(JSON.parse(run.stdout).history.items.at(-1)).toMatchObject({
      data: { payload: { key: "XXXXXXXXXXXX" } },
    });
  });
});
