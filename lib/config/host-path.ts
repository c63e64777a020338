// The one rule for a path on a broker host that the bot passes to a host
// script (log dirs, the logs dir, Kafka's bin dir, a config file): absolute,
// of characters a shell never reads as syntax. It admits the `+ @ : %` found in
// real mount points (`/mnt/disk+1`, `/data/kafka@a`, `/srv/vol:2`, escaped
// `%2F`). The same pattern is the SSM documents' allowedPattern, what the TS
// side checks before sending, what the config accepts, and (literally, kept
// equal by a test) the KR_PATH_RE line of probe.sh and service-control.sh, so
// a dir the probe reports is a dir the service script checks, or the probe
// says it cannot be.
export const HOST_PATH = '/[A-Za-z0-9_.:/@+%-]{0,1000}';

export const HOST_PATH_RE = new RegExp(`^${HOST_PATH}$`);

export function isHostPath(path: string): boolean {
  return HOST_PATH_RE.test(path);
}
