// Example V3 webhook bodies in the shape PagerDuty documents, for tests and
// the alert-source table's examples: one incident's life (triggered,
// acknowledged, annotated, resolved) on a service named for a Kafka cluster.

export const EXAMPLE_SERVICE_ID = 'PKAFKA1';
export const EXAMPLE_INCIDENT_ID = 'Q0RIJJZL24RC6W';

const service = {
  html_url: `https://acme.pagerduty.com/service-directory/${EXAMPLE_SERVICE_ID}`,
  id: EXAMPLE_SERVICE_ID,
  self: `https://api.pagerduty.com/services/${EXAMPLE_SERVICE_ID}`,
  summary: 'Kafka sandbox',
  type: 'service_reference',
};

const agent = {
  html_url: 'https://acme.pagerduty.com/users/PLH1HKV',
  id: 'PLH1HKV',
  self: 'https://api.pagerduty.com/users/PLH1HKV',
  summary: 'Tenex Engineer',
  type: 'user_reference',
};

function incident(status: 'triggered' | 'acknowledged' | 'resolved') {
  return {
    id: EXAMPLE_INCIDENT_ID,
    type: 'incident',
    self: `https://api.pagerduty.com/incidents/${EXAMPLE_INCIDENT_ID}`,
    html_url: `https://acme.pagerduty.com/incidents/${EXAMPLE_INCIDENT_ID}`,
    number: 2146,
    status,
    incident_key: 'd3640fbd41094207a1c11e58e46b1662',
    created_at: '2026-03-02T09:14:07Z',
    title: 'UnderReplicatedPartitions > 0 on orders',
    service,
    assignees: [agent],
    escalation_policy: { html_url: 'https://acme.pagerduty.com/escalation_policies/PUS0KTE', id: 'PUS0KTE', self: 'https://api.pagerduty.com/escalation_policies/PUS0KTE', summary: 'Data platform', type: 'escalation_policy_reference' },
    teams: [{ html_url: 'https://acme.pagerduty.com/teams/PFCVPS0', id: 'PFCVPS0', self: 'https://api.pagerduty.com/teams/PFCVPS0', summary: 'Streaming', type: 'team_reference' }],
    priority: { html_url: 'https://acme.pagerduty.com/account/incident_priorities', id: 'PSO75BM', self: 'https://api.pagerduty.com/priorities/PSO75BM', summary: 'P2', type: 'priority_reference' },
    urgency: 'high',
    conference_bridge: null,
    resolve_reason: null,
    custom_fields: [{ id: 'PT4KHEE', name: 'kafka_cluster', display_name: 'Kafka cluster', type: 'field_value', data_type: 'string', field_type: 'single_value', value: 'prod-msk' }],
  };
}

function envelope(id: string, eventType: string, occurredAt: string, data: unknown) {
  return { event: { id, event_type: eventType, resource_type: 'incident', occurred_at: occurredAt, agent, client: { name: 'PagerDuty' }, data } };
}

export const PAGERDUTY_EXAMPLES = {
  triggered: envelope('01DEN1HNLBC1VITYKXONJNLN6S', 'incident.triggered', '2026-03-02T09:14:07.402Z', incident('triggered')),
  acknowledged: envelope('01DEN1HNLBC1VITYKXONJNLN7A', 'incident.acknowledged', '2026-03-02T09:16:41.118Z', incident('acknowledged')),
  annotated: envelope('01DEN1HNLBC1VITYKXONJNLN8B', 'incident.annotated', '2026-03-02T09:21:03.550Z', {
    incident: { html_url: `https://acme.pagerduty.com/incidents/${EXAMPLE_INCIDENT_ID}`, id: EXAMPLE_INCIDENT_ID, self: `https://api.pagerduty.com/incidents/${EXAMPLE_INCIDENT_ID}`, summary: 'UnderReplicatedPartitions > 0 on orders', type: 'incident_reference' },
    id: 'PWL7QXS',
    content: 'Broker 2 restarted by the platform team.',
    trimmed: false,
    type: 'incident_note',
  }),
  resolved: envelope('01DEN1HNLBC1VITYKXONJNLN9C', 'incident.resolved', '2026-03-02T09:48:12.907Z', incident('resolved')),
} as const;
