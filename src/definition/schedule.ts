import { Cron } from "croner";
import type { Definition } from "./types.js";

export type Schedule = NonNullable<Definition["schedule"]>;

const units: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The longest wait Node's timers take (a signed 32-bit count of ms): a longer one would fire at once. */
const longestTimerMs = 2 ** 31 - 1;

/** `every`'s text as milliseconds (`"90s"` → 90000), or undefined when it is not a number and a unit. */
export function everyMs(text: string): number | undefined {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * (units[match[2] as string] as number);
  return ms > 0 && ms <= longestTimerMs ? ms : undefined;
}

/** Why a schedule cannot run (a cron pattern or time zone croner refuses, an `every` it cannot read), or undefined. */
export function scheduleProblem(
  schedule: Schedule,
): { key: "every" | "cron" | "tz"; message: string } | undefined {
  if ((schedule.every === undefined) === (schedule.cron === undefined))
    return {
      key: schedule.every === undefined ? "cron" : "every",
      message: "a schedule has either every or cron, not both and not neither",
    };
  if (schedule.every !== undefined && everyMs(schedule.every) === undefined)
    return {
      key: "every",
      message: `every ${JSON.stringify(schedule.every)} is not a number and a unit (500ms, 30s, 5m, 1h, 1d) of at most 24 days; use cron for longer`,
    };
  if (schedule.cron === undefined) return undefined;
  if (schedule.tz !== undefined && !isTimeZone(schedule.tz))
    return {
      key: "tz",
      message: `tz ${JSON.stringify(schedule.tz)} is not an IANA time zone (Europe/Paris, America/New_York, UTC)`,
    };
  try {
    new Cron(schedule.cron, { paused: true, timezone: schedule.tz });
    return undefined;
  } catch (error) {
    const message = (error as Error).message;
    const key = /time ?zone/i.test(message) ? "tz" : "cron";
    return {
      key,
      message: `${key === "tz" ? `tz ${JSON.stringify(schedule.tz)}` : `cron ${JSON.stringify(schedule.cron)}`}: ${message}`,
    };
  }
}

/** When the schedule runs next after `from`: a cron's next time, or `from` plus `every`. */
export function nextRun(schedule: Schedule, from = new Date()): Date | undefined {
  if (scheduleProblem(schedule)) return undefined;
  if (schedule.every !== undefined) return new Date(from.getTime() + (everyMs(schedule.every) as number));
  return (
    new Cron(schedule.cron as string, { paused: true, timezone: schedule.tz }).nextRun(from) ?? undefined
  );
}

/** How a schedule reads in a list: `every 5m`, `cron 0 9 * * 1-5 (Europe/Paris)`. */
export function describeSchedule(schedule: Schedule): string {
  if (schedule.every !== undefined) return `every ${schedule.every}`;
  return `cron ${schedule.cron}${schedule.tz ? ` (${schedule.tz})` : ""}`;
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
