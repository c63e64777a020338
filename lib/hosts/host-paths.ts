// The one rule for a path on a broker host that the bot passes to a host
// script (log dirs, the logs dir, Kafka's bin dir, a config file): absolute,
// of characters a shell never reads as syntax. It admits the `+ @ : %` found in
// real mount points (`/mnt/disk+1`, `/data/kafka@a`, `/srv/vol:2`, escaped
// `%2F`). The same pattern is the SSM documents' allowedPattern, what the TS
// side checks before sending, and (literally, kept equal by a test) the
// KR_PATH_RE line of probe.sh and service-control.sh, so a dir the probe
// reports is a dir the service script checks, or the probe says it cannot be.
export const HOST_PATH = '/[A-Za-z0-9_.:/@+%-]{0,1000}';

const HOST_PATH_RE = new RegExp(`^${HOST_PATH}$`);

export function isHostPath(path: string): boolean {
  return HOST_PATH_RE.test(path);
}

/** The line both shell scripts carry (a test checks it is there, unchanged). */
export const HOST_PATH_SHELL_LINE = `KR_PATH_RE='^${HOST_PATH}$'`;
