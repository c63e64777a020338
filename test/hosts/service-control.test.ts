// The broker service script's contract: typed arguments (refused by the TS side
// and by the script itself), its status output, and the log wording it reads.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { scriptText } from '../../lib/hosts/script-text.ts';
import { parseServiceStatus, serviceParams, systemdSeconds } from '../../lib/hosts/service-control.ts';

const script = readFileSync(new URL('../../lib/hosts/service-control.sh', import.meta.url), 'utf8');

describe('service-control.sh', () => {
  it('is loaded from its one source', () => {
    expect(scriptText('service-control.sh')).toBe(script);
  });

  it('refuses anything but its typed arguments, before touching the host', () => {
    const run = (...args: string[]) => spawnSync('bash', ['-s', '--', ...args], { input: script, encoding: 'utf8', cwd: '/tmp' });
    expect(run('restart', 'kafka', '-').status).toBe(64);
    expect(run('stop', 'kafka;reboot', '-').status).toBe(64);
    expect(run('stop', '--now', '-').status).toBe(64);
    expect(run('status', 'kafka', 'relative/logs').status).toBe(64);
    expect(run('status', 'kafka', '-', '/data/$(id)').status).toBe(64);
    expect(serviceParams({ action: 'stop', unit: 'kafka.service', logsDir: null, logDirs: ['/data/kafka', 'bad dir'] })).toEqual({ action: 'stop', unit: 'kafka.service', logsDir: '-', logDirs: '/data/kafka' });
    expect(serviceParams({ action: 'stop', unit: '-kafka', logsDir: null, logDirs: [] })).toMatch(/bad systemd unit name/);
  });

  it('status reads state, pid, markers and the stop timeout; keys it does not know (an older script\'s line=) are ignored', () => {
    const s = parseServiceStatus('state=deactivating\npid=4242\nmarker=1 /data/a\nmarker=0 /data/b\nmarker=- /data/c\nline=[x] shutting down\ntimeoutStop=1min 30s\n');
    expect(s).toEqual({
      state: 'deactivating',
      pid: 4242,
      markers: [
        { dir: '/data/a', present: true },
        { dir: '/data/b', present: false },
        { dir: '/data/c', present: null },
      ],
      timeoutStopRaw: '1min 30s',
    });
    expect(parseServiceStatus('state=inactive\npid=0\n').pid).toBeNull();
  });

  describe('systemd stop timeout', () => {
    it('systemd TimeoutStopUSec text in seconds', () => {
      expect(systemdSeconds('1min 30s')).toBe(90);
      expect(systemdSeconds('infinity')).toBe(Infinity);
      expect(systemdSeconds('500ms')).toBe(0.5);
      expect(systemdSeconds('')).toBeNull();
    });
  });
});
