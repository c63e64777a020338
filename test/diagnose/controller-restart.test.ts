// can-restart for KRaft controllers: one function for the CLI and Slack
// (assessRestart), a controller recognised from the quorum's voters and judged
// by what its stop costs the metadata quorum.
import { describe, expect, it } from 'vitest';
import { assessRestart } from '../../lib/diagnose/can-restart.ts';
import { renderRestartMarkdown } from '../../lib/diagnose/render-markdown.ts';
import { renderCanRestart } from '../../lib/diagnose/render-slack.ts';
import { renderRestart } from '../../lib/diagnose/render-terminal.ts';
import type { ClusterSnapshot } from '../../lib/kafka/types.ts';
import { answeredQuorum, lostQuorum, type VoterSpec } from '../helpers/quorum-fixtures.ts';
import { healthyCluster, probeReport } from './fixtures.ts';

const withQuorum = (leader: number | null, voters: (number | VoterSpec)[], observers: number[] = [1, 2, 3]): ClusterSnapshot => ({ ...healthyCluster(), quorum: answeredQuorum(leader, voters, observers) });
const plain = { color: false } as const;

describe('can-restart for a KRaft controller', () => {
  it('a follower of a healthy quorum of three: yes, with what a controller restart does', () => {
    const a = assessRestart(withQuorum(100, [100, 101, 102]), 101, null);
    expect(a).toMatchObject({ brokerId: 101, role: 'controller', verdict: 'yes', reasons: [], wouldGoOffline: [], recovering: null });
    expect(a.notes.join('\n')).toContain('What a controller restart does: brokers keep serving produce and fetch requests with the leaders they have; while controller 101 is down the quorum runs on 2 of 3 voters (one more failure then loses the majority)');
  });

  it('the active controller: yes, advised to go last (its restart causes a leader election)', () => {
    const a = assessRestart(withQuorum(100, [100, 101, 102]), 100, null);
    expect(a.verdict).toBe('yes');
    expect(a.notes[0]).toMatch(/^Controller 100 is the active controller \(the quorum's leader in epoch 7\): restarting it makes the other voters elect a new leader.*Restart the other controllers first and this one last\.$/);
  });

  it('no when the restart would cost the majority: another voter is already down', () => {
    const s = withQuorum(100, [100, 101, { id: 102, fetchAgo: 45_000, lag: 300 }]);
    const a = assessRestart(s, 101, null);
    expect(a.verdict).toBe('no');
    expect(a.reasons[0]).toBe('Restarting controller 101 would cost the quorum its majority: only controller 100 would remain live and caught up of 3 voters, and 2 are needed to elect a leader and commit metadata.');
    expect(a.reasons[1]).toMatch(/^Controller 102 is not fetching from the leader \(last fetch 45 s ago\): restart one controller at a time/);
    // The leader too: restarting it then leaves one caught-up voter of three.
    expect(assessRestart(s, 100, null).verdict).toBe('no');
    // The one that is down: its restart takes nothing from the majority.
    const down = assessRestart(s, 102, null);
    expect(down.verdict).toBe('yes');
    expect(down.notes[0]).toMatch(/^Controller 102 itself is not fetching from the leader/);
  });

  it('no while another voter lags, even when the majority would hold (five voters)', () => {
    const s = withQuorum(100, [100, 101, 102, 103, { id: 104, lag: 2_500, caughtUpAgo: 30_000 }]);
    const a = assessRestart(s, 101, null);
    expect(a.verdict).toBe('no');
    expect(a.reasons).toEqual([
      'Controller 104 is lagging (2,500 records behind the leader, last caught up 30 s ago): restart one controller at a time, each only once every other voter is caught up (kafka-metadata-quorum.sh describe --replication).',
    ]);
    expect(a.notes.at(-1)).toMatch(/runs on 4 of 5 voters \(it survives 1 more failure\)/);
  });

  it('a voter that fetches but was last caught up long ago is lagging; lag 0 is caught up whatever the timestamps', () => {
    expect(assessRestart(withQuorum(100, [100, 101, { id: 102, lag: 40, caughtUpAgo: 20_000 }]), 101, null).verdict).toBe('no');
    expect(assessRestart(withQuorum(100, [100, 101, { id: 102, lag: 0, caughtUpAgo: 20_000 }]), 101, null).verdict).toBe('yes');
  });

  it('a controller that is an observer (not yet a voter): yes, its restart changes no majority', () => {
    const a = assessRestart(withQuorum(100, [100, 101, 102], [1, 2, 3, 103]), 103, null);
    expect(a).toMatchObject({ role: 'controller', verdict: 'yes' });
    expect(a.notes[0]).toMatch(/observer of the metadata log, not a voter/);
  });

  it('brokers are observers too: a broker id is still judged as a broker', () => {
    const a = assessRestart(withQuorum(100, [100, 101, 102]), 1, probeReport());
    expect(a.role).toBeUndefined();
    expect(a.verdict).toBe('yes');
    expect(a.notes.join(' ')).not.toMatch(/controller/i);
  });

  it('a combined node (broker and voter) is judged as both', () => {
    const s = withQuorum(1, [1, 2, { id: 3, fetchAgo: null }], []);
    const a = assessRestart(s, 2, probeReport());
    expect(a.role).toBeUndefined();
    expect(a.verdict).toBe('no');
    expect(a.reasons[0]).toMatch(/^Restarting controller 2 would cost the quorum its majority/);
  });

  it('while the quorum has no leader: no for every node, brokers included', () => {
    const s = { ...healthyCluster(), quorum: lostQuorum() };
    const broker = assessRestart(s, 1, probeReport());
    expect(broker.verdict).toBe('no');
    expect(broker.reasons[0]).toMatch(/^The KRaft controller quorum has no leader: restart nothing until a majority of the controllers is back\. Meanwhile brokers keep serving with the leaders they have/);
    const node = assessRestart(s, 101, null);
    expect(node).toMatchObject({ role: 'node', verdict: 'no' });
    expect(node.reasons[1]).toMatch(/whether it is a controller cannot be told while the quorum has no leader/);
  });

  it('an id neither broker nor controller is still "not part of this cluster"', () => {
    const a = assessRestart(withQuorum(100, [100, 101, 102]), 7, null);
    expect(a.verdict).toBe('no');
    expect(a.reasons[0]).toMatch(/^Broker 7 is not part of this cluster/);
  });

  it('renders as a controller: no log recovery line, no drain button', () => {
    const yes = assessRestart(withQuorum(100, [100, 101, 102]), 101, null);
    expect(renderRestart(yes, plain)).toMatch(/^Can controller 101 be restarted now\? YES/);
    expect(renderRestart(yes, plain)).not.toMatch(/recovering logs/);
    expect(renderRestartMarkdown('prod', yes)).toMatch(/^## Can controller 101 of prod restart now\? \*\*Yes\*\*/);
    expect(renderRestartMarkdown('prod', yes)).not.toMatch(/Recovering logs/);
    const no = assessRestart(withQuorum(100, [100, 101, { id: 102, fetchAgo: null }]), 101, null);
    const slack = renderCanRestart('prod', no, 'corr-1');
    expect(slack.text).toMatch(/^Controller 101: No: Restarting controller 101 would cost the quorum its majority/);
    expect(JSON.stringify(slack.blocks)).not.toContain('Plan drain');
  });
});
