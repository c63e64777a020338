// `osls package` without AWS credentials, then the generated CloudFormation:
// routes, queue, tables, per-function least-privilege IAM, and bundle sizes.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readZip } from './zip.ts';
import { HOST_SCRIPTS, documentResourceName, ssmDocument } from '../../lib/hosts/scripts.ts';
import { STATE_TABLE_KEYS } from '../../lib/state/dynamo-state-store.ts';
import { policyDocuments } from './resolve-intrinsics.ts';
import { ALERT_SOURCES } from '../../lib/alerts/sources/index.ts';
import type { HttpAlertSource } from '../../lib/alerts/sources/types.ts';

/** The webhook alert sources: each an HTTP API route of the alerts function, with its own SecureString. */
const WEBHOOKS = ALERT_SOURCES.filter((s): s is HttpAlertSource => s.kind === 'http');

/** cfn-lint (pip install cfn-lint) validates the template, parliament (pip install parliament) its IAM policies, when installed. */
function hasTool(tool: string): boolean {
  return spawnSync(tool, ['--version'], { encoding: 'utf8' }).status === 0;
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let outDir: string;
let template: Json;
let resources: Json;

beforeAll(() => {
  outDir = mkdtempSync(join(tmpdir(), 'kr-osls-'));
  const env: NodeJS.ProcessEnv = { ...process.env, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off', AWS_SDK_LOAD_CONFIG: '0' };
  for (const k of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE']) delete env[k];
  // No credentials anywhere: a config that needed them (${ssm:}, ${aws:accountId}) would fail here.
  env.AWS_SHARED_CREDENTIALS_FILE = join(outDir, 'no-credentials');
  env.AWS_CONFIG_FILE = join(outDir, 'no-config');
  // serverless-esbuild leaves its per-function build dirs in TMPDIR: keep them in ours, removed below.
  env.TMPDIR = join(outDir, 'tmp');
  mkdirSync(env.TMPDIR);
  execFileSync('npx', ['osls', 'package', '--stage', 'ci', '--package', outDir], { cwd: process.cwd(), env, stdio: 'pipe', timeout: 300_000 });
  template = JSON.parse(readFileSync(join(outDir, 'cloudformation-template-update-stack.json'), 'utf8')) as Json;
  resources = template.Resources as Json;
}, 320_000);

afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const asArray = <T>(x: T | T[] | undefined): T[] => (x === undefined ? [] : Array.isArray(x) ? x : [x]);

function roleStatements(roleName: string): Json[] {
  return (resources[roleName].Properties.Policies as Json[]).flatMap((p) => asArray(p.PolicyDocument.Statement as Json[]));
}

function allowStatements(): { where: string; statement: Json }[] {
  const out: { where: string; statement: Json }[] = [];
  for (const [name, r] of Object.entries(resources)) {
    const docs: Json[] = [];
    if (r.Type === 'AWS::IAM::Role') for (const p of r.Properties.Policies ?? []) docs.push(p.PolicyDocument);
    if (r.Type === 'AWS::IAM::Policy' || r.Type === 'AWS::IAM::ManagedPolicy') docs.push(r.Properties.PolicyDocument);
    for (const d of docs) for (const s of asArray(d.Statement as Json[])) if (s.Effect === 'Allow') out.push({ where: name, statement: s });
  }
  return out;
}

describe('osls package (no AWS credentials)', () => {
  it('exposes the HTTP API routes for Slack and for each webhook alert source (ALERT_SOURCES)', () => {
    const routes = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey).sort();
    expect(routes).toEqual(['POST /slack/events', 'POST /slack/interactivity', ...WEBHOOKS.map((s) => `POST ${s.path}`)].sort());
  });

  it('subscribes the CloudWatch function to the alarm topic and feeds the worker from the FIFO queue with a DLQ', () => {
    const [[, sub]] = ofType('AWS::SNS::Subscription') as [[string, Json]];
    expect(sub.Properties).toMatchObject({ Protocol: 'lambda', TopicArn: { Ref: 'AlarmTopic' } });
    const [[, mapping]] = ofType('AWS::Lambda::EventSourceMapping') as [[string, Json]];
    expect(mapping.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(JSON.stringify(mapping.Properties.EventSourceArn)).toContain('JobQueue');
    expect(resources.JobQueue.Properties).toMatchObject({ FifoQueue: true, RedrivePolicy: { maxReceiveCount: 3 } });
    expect(resources.JobQueue.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * resources.WorkerLambdaFunction.Properties.Timeout);
  });

  it('creates the state table with TTL on expiresAt, and the approvals table', () => {
    expect(resources.StateTable.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'expiresAt', Enabled: true });
    expect(resources.StateTable.Properties.KeySchema).toEqual([{ AttributeName: 'pk', KeyType: 'HASH' }]);
    // The status lists' index, exactly as the store queries it and serve/tests create it.
    expect(resources.StateTable.Properties.AttributeDefinitions).toEqual(STATE_TABLE_KEYS.AttributeDefinitions);
    expect(resources.StateTable.Properties.GlobalSecondaryIndexes).toEqual(STATE_TABLE_KEYS.GlobalSecondaryIndexes);
    // Approvals and their audit trail (issue 5): composite key, TTL on "ttl", kept when the stack goes.
    const approvals = resources.ApprovalsTable;
    expect(approvals.Type).toBe('AWS::DynamoDB::Table');
    expect(approvals.DeletionPolicy).toBe('Retain');
    expect(approvals.Properties.KeySchema).toEqual([{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }]);
    expect(approvals.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'ttl', Enabled: true });
    expect(approvals.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    for (const fn of ['SlackLambdaFunction', 'WorkerLambdaFunction']) {
      expect(resources[fn].Properties.Environment.Variables.APPROVALS_TABLE, fn).toEqual({ Ref: 'ApprovalsTable' });
    }
    // Only the Slack ack path and the worker touch approvals; no one may delete or scan them.
    const approvalGrants = allowStatements().filter(({ statement }) => JSON.stringify(statement.Resource).includes('ApprovalsTable'));
    expect([...new Set(approvalGrants.map((g) => g.where))].sort()).toEqual(['SlackRole', 'WorkerRole']);
    for (const { statement } of approvalGrants) {
      const actions = asArray(statement.Action as string[]).sort();
      if (JSON.stringify(statement.Resource).includes('/index/sweep-index')) expect(actions).toEqual(['dynamodb:Query']);
      else expect(actions).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
    }
    // The sweep finds open and running requests through a sparse index, not a scan.
    expect(approvals.Properties.GlobalSecondaryIndexes).toEqual([
      { IndexName: 'sweep-index', KeySchema: [{ AttributeName: 'sweep', KeyType: 'HASH' }, { AttributeName: 'sweepSince', KeyType: 'RANGE' }], Projection: { ProjectionType: 'KEYS_ONLY' } },
    ]);
  });

  it('runs long operations tick by tick: a standard delay queue feeds the worker, the sweep runs every minute, serve knows the worker timeout', async () => {
    const delay = resources.DelayQueue.Properties;
    expect(delay.FifoQueue).toBeUndefined();
    expect(delay.VisibilityTimeout).toBeGreaterThanOrEqual(6 * resources.WorkerLambdaFunction.Properties.Timeout);
    expect(JSON.stringify(resources.DelayQueue.Properties.RedrivePolicy)).toContain('DelayDeadLetterQueue');
    const sources = ofType('AWS::Lambda::EventSourceMapping').map(([, m]) => JSON.stringify(m.Properties));
    expect(sources.filter((m) => m.includes('WorkerLambdaFunction') && m.includes('DelayQueue'))).toHaveLength(1);
    // The worker's concurrency is bounded where SQS waits instead of throttling (no receive is spent).
    for (const [, m] of ofType('AWS::Lambda::EventSourceMapping')) expect(m.Properties.ScalingConfig?.MaximumConcurrency).toBeGreaterThanOrEqual(2);
    expect(resources.WorkerLambdaFunction.Properties.ReservedConcurrentExecutions).toBeUndefined();
    expect(resources.WorkerLambdaFunction.Properties.Environment.Variables.DELAY_QUEUE_URL).toEqual({ Ref: 'DelayQueue' });
    const rules = ofType('AWS::Events::Rule').map(([, r]) => r.Properties);
    expect(rules.map((r) => r.ScheduleExpression)).toContain('rate(1 minute)');
    expect(JSON.stringify(rules)).toContain('SweepLambdaFunction');
    expect(resources.SweepLambdaFunction.Properties.Handler).toMatch(/worker\.sweep$/);
    // The timeline job and the diagnosis's "what changed" read lists through the state table's index.
    const workerQueries = roleStatements('WorkerRole').filter((st) => asArray(st.Action as string[]).includes('dynamodb:Query') && JSON.stringify(st.Resource).includes('StateTable'));
    expect(workerQueries.map((st) => JSON.stringify(st.Resource))).toEqual([expect.stringContaining('/index/list-index')]);
    const workerSends = roleStatements('WorkerRole').filter((st) => asArray(st.Action as string[]).includes('sqs:SendMessage'));
    expect(JSON.stringify(workerSends)).toContain('DelayQueue');
    const { DEPLOYED_WORKER_TIMEOUT_SECONDS } = await import('../../lib/local/worker-timeout.ts');
    expect(resources.WorkerLambdaFunction.Properties.Timeout).toBe(DEPLOYED_WORKER_TIMEOUT_SECONDS);
  });

  it('gives each function its own role, and only the worker runs in the VPC', () => {
    const role = (fn: string) => resources[fn].Properties.Role;
    expect(JSON.stringify(role('SlackLambdaFunction'))).toContain('SlackRole');
    expect(JSON.stringify(role('AlertsLambdaFunction'))).toContain('AlertsRole');
    expect(JSON.stringify(role('CloudwatchLambdaFunction'))).toContain('AlertsRole');
    expect(JSON.stringify(role('WorkerLambdaFunction'))).toContain('WorkerRole');
    expect(resources.IamRoleLambdaExecution).toBeUndefined();
    expect(resources.WorkerLambdaFunction.Properties.VpcConfig.SubnetIds).toHaveLength(2);
    expect(resources.SlackLambdaFunction.Properties.VpcConfig).toBeUndefined();
    for (const fn of ['SlackLambdaFunction', 'WorkerLambdaFunction']) {
      expect(resources[fn].Properties.Runtime).toBe('nodejs22.x');
    }
  });

  it('grants no "*" action anywhere', () => {
    const statements = allowStatements();
    expect(statements.length).toBeGreaterThan(5);
    for (const { where, statement } of statements) {
      for (const action of asArray(statement.Action as string | string[])) {
        expect(action, `${where}: ${action}`).not.toMatch(/\*/);
      }
      expect(statement.NotAction, where).toBeUndefined();
    }
  });

  it('lets the worker send only our own SSM documents (no AWS-RunShellScript), only to tagged broker instances', () => {
    const sendCommand = allowStatements().filter(({ statement }) => asArray(statement.Action).includes('ssm:SendCommand'));
    expect(sendCommand.map((s) => s.where).sort()).toEqual(['WorkerHostScriptsPolicy', 'WorkerRole']);
    const instances = sendCommand.find((s) => s.where === 'WorkerRole')!.statement;
    expect(asArray(instances.Action)).toEqual(['ssm:SendCommand']);
    expect(JSON.stringify(instances.Resource)).toMatch(/:ec2:.*:instance\/\*/);
    expect(instances.Condition).toEqual({ StringEquals: { 'aws:ResourceTag/kafka-responder:role': 'kafka-broker' } });
    expect(resources.WorkerHostScriptsPolicy.Properties.Roles).toEqual([{ Ref: 'WorkerRole' }]);
    const documents = sendCommand.find((s) => s.where === 'WorkerHostScriptsPolicy')!.statement;
    expect(asArray(documents.Action)).toEqual(['ssm:SendCommand']);
    // Exactly one document ARN per host script, each a Ref to its document in this stack.
    const refs = asArray(documents.Resource as Json[]).map((r) => JSON.stringify(r).match(/:document\/","?\{"Ref":"(\w+)"\}/)?.[1]);
    expect(refs.sort()).toEqual(Object.values(HOST_SCRIPTS).map(documentResourceName).sort());
    expect(JSON.stringify(template).includes('AWS-RunShellScript'), 'AWS-RunShellScript in the template').toBe(false);
    // The only "*" resource is for actions without resource-level permissions.
    for (const { where, statement } of allowStatements()) {
      if (asArray(statement.Resource).includes('*')) {
        for (const a of asArray(statement.Action as string | string[])) {
          expect(['ssm:GetCommandInvocation', 'ssm:CancelCommand', 'ec2:CreateNetworkInterface', 'ec2:DescribeNetworkInterfaces', 'ec2:DeleteNetworkInterface', 'ec2:AssignPrivateIpAddresses', 'ec2:UnassignPrivateIpAddresses'], `${where}: ${a}`).toContain(a);
        }
      }
    }
    expect(JSON.stringify(template)).not.toContain('ssm:ListCommandInvocations');
  });

  it('lets the worker, and only the worker, cancel the commands it sent (ssm:CancelCommand, in a statement of its own)', () => {
    const cancel = allowStatements().filter(({ statement }) => asArray(statement.Action).includes('ssm:CancelCommand'));
    expect(cancel.map((s) => s.where)).toEqual(['WorkerRole']);
    expect(asArray(cancel[0]!.statement.Action)).toEqual(['ssm:CancelCommand']);
  });

  it('deploys each host script as a Command document (schema 2.2, aws:runShellScript) with a pattern on every parameter', () => {
    for (const script of Object.values(HOST_SCRIPTS)) {
      const doc = resources[documentResourceName(script)];
      expect(doc.Type).toBe('AWS::SSM::Document');
      expect(doc.Properties).toMatchObject({ DocumentType: 'Command', UpdateMethod: 'NewVersion', Name: { 'Fn::Join': ['', [{ Ref: 'AWS::StackName' }, `-${script.name}`]] } });
      const content = doc.Properties.Content as Json;
      expect(content.schemaVersion).toBe('2.2');
      expect(content.mainSteps.map((s: Json) => s.action)).toEqual(['aws:runShellScript']);
      // What is deployed is what the registry makes now (rendered at package time from lib/hosts/*.sh).
      expect(content).toEqual(ssmDocument(script));
      for (const [name, p] of Object.entries(content.parameters as Record<string, Json>)) {
        expect(p.allowedPattern, `${script.name}.${name}`).toMatch(/^\^.*\$$/);
      }
      expect(JSON.stringify(content).length, `${script.name} document size`).toBeLessThan(64 * 1024);
    }
    // The stack name the documents are named after is the prefix the worker sends them by.
    expect(resources.WorkerLambdaFunction.Properties.Environment.Variables.KR_SSM_DOCUMENT_PREFIX).toBe('kafka-responder-ci-');
  });

  it('holds no secret value: the functions get parameter NAMES only and read them at run time', () => {
    const text = JSON.stringify(template);
    for (const marker of ['{{resolve:ssm', 'resolve:ssm-secure', 'xoxb-', 'xapp-']) expect(text.includes(marker), marker).toBe(false);
    const fns = ofType('AWS::Lambda::Function');
    expect(fns.length).toBe(6);
    for (const [name, fn] of fns) {
      const vars = (fn.Properties.Environment?.Variables ?? {}) as Record<string, unknown>;
      for (const secret of ['SLACK_SIGNING_SECRET', 'SLACK_BOT_TOKEN', 'ALERTMANAGER_TOKEN', 'KR_CONFIG', 'KAFKA_SASL_PASSWORD', 'PAGERDUTY_ROUTING_KEY', 'PAGERDUTY_API_TOKEN', 'PAGERDUTY_WEBHOOK_SECRETS']) expect(vars[secret], `${name} ${secret}`).toBeUndefined();
      for (const [k, v] of Object.entries(vars)) if (k.endsWith('_PARAMETER')) expect(v, `${name} ${k}`).toMatch(/^\/kafka-responder\/ci\/[a-z-]+$/);
    }
    const env = (fn: string) => resources[fn].Properties.Environment.Variables;
    expect(env('SlackLambdaFunction')).toMatchObject({ KR_SLACK_SIGNING_SECRET_PARAMETER: '/kafka-responder/ci/slack-signing-secret', KR_SLACK_BOT_TOKEN_PARAMETER: '/kafka-responder/ci/slack-bot-token', KR_CONFIG_PARAMETER: '/kafka-responder/ci/config' });
    // The alerts function names exactly its sources' secrets, no other parameter.
    const alertParameters = Object.fromEntries(Object.entries(env('AlertsLambdaFunction') as Record<string, string>).filter(([k]) => k.endsWith('_PARAMETER')));
    expect(alertParameters).toEqual(Object.fromEntries(WEBHOOKS.map((s) => [s.auth.secret.parameterVar, `/kafka-responder/ci/${s.auth.secret.parameter}`])));
    for (const fn of ['WorkerLambdaFunction', 'SweepLambdaFunction', 'AuditScheduleLambdaFunction']) {
      expect(env(fn)).toMatchObject({
        KR_SLACK_BOT_TOKEN_PARAMETER: '/kafka-responder/ci/slack-bot-token',
        KR_CONFIG_PARAMETER: '/kafka-responder/ci/config',
        KR_KAFKA_CREDENTIALS_PARAMETER: '/kafka-responder/ci/kafka-scram-credentials',
        KR_PAGERDUTY_ROUTING_KEY_PARAMETER: '/kafka-responder/ci/pagerduty-routing-key',
        KR_PAGERDUTY_API_TOKEN_PARAMETER: '/kafka-responder/ci/pagerduty-api-token',
      });
    }
  });

  it('grants ssm:GetParameter on exactly the parameters each role reads, and kms:Decrypt of their key only through SSM', () => {
    const readable = (role: string) =>
      roleStatements(role)
        .filter((s) => asArray(s.Action as string[]).some((a) => a.startsWith('ssm:GetParameter')))
        .flatMap((s) => {
          expect(asArray(s.Action as string[])).toEqual(['ssm:GetParameter']);
          return asArray(s.Resource as Json[]).map((r) => String(JSON.stringify(r).match(/:parameter(\/[^"]+)/)?.[1]));
        })
        .sort();
    expect(readable('SlackRole')).toEqual(['/kafka-responder/ci/config', '/kafka-responder/ci/slack-bot-token', '/kafka-responder/ci/slack-signing-secret']);
    expect(readable('AlertsRole')).toEqual([...new Set(WEBHOOKS.map((s) => `/kafka-responder/ci/${s.auth.secret.parameter}`))].sort());
    expect(readable('WorkerRole')).toEqual(['/kafka-responder/ci/config', '/kafka-responder/ci/kafka-scram-credentials', '/kafka-responder/ci/pagerduty-api-token', '/kafka-responder/ci/pagerduty-routing-key', '/kafka-responder/ci/slack-bot-token']);
    // The default, the AWS-managed aws/ssm key, needs no grant; a customer managed key (the stack
    // parameter, or --param parameterKmsKeyId=… at package) is decrypted by each role only through SSM.
    const decrypts = (t: Json) =>
      policyDocuments(t).flatMap(({ where, document }) =>
        asArray((document as Json).Statement as Json[]).filter((st) => asArray(st.Action as string[]).some((a) => a.startsWith('kms:'))).map((st) => ({ role: where.split('/')[0], st })));
    expect(decrypts(template)).toEqual([]);
    const keyId = '1234abcd-12ab-34cd-56ef-1234567890ab';
    const deployedWithKey = structuredClone(template);
    deployedWithKey.Parameters.ParameterKmsKeyId.Default = keyId;
    const withKey = decrypts(deployedWithKey);
    expect(withKey.map((d) => d.role).sort()).toEqual(['AlertsRole', 'SlackRole', 'WorkerRole']);
    for (const { st } of withKey) {
      expect(st.Action).toEqual(['kms:Decrypt']);
      expect(st.Resource).toBe(`arn:aws:kms:us-east-1:123456789012:key/${keyId}`);
      expect(st.Condition).toEqual({ StringEquals: { 'kms:ViaService': 'ssm.us-east-1.amazonaws.com' } });
    }
  });

  it.skipIf(!hasTool('cfn-lint'))('passes cfn-lint with no error (warnings about osls\'s own explicit DependsOn aside)', () => {
    const r = spawnSync('cfn-lint', ['--format', 'json', join(outDir, 'cloudformation-template-update-stack.json')], { encoding: 'utf8', timeout: 120_000 });
    const findings = JSON.parse(r.stdout || '[]') as { Rule: { Id: string }; Level: string; Message: string }[];
    const problems = findings.filter((f) => f.Rule.Id !== 'W3005');
    expect(problems.map((f) => `${f.Level} ${f.Rule.Id}: ${f.Message}`)).toEqual([]);
  });

  it.skipIf(!hasTool('parliament'))('passes parliament on every IAM policy, but for two findings the linter cannot see past', () => {
    const findings: string[] = [];
    for (const { where, document } of policyDocuments(template)) {
      // parliament reads the policy from stdin when stdin is not a terminal.
      const r = spawnSync('parliament', ['--json', '--include-community-auditors'], { input: JSON.stringify(document), encoding: 'utf8', timeout: 120_000 });
      expect(r.status, r.stderr).not.toBeNull();
      for (const line of r.stdout.split('\n').filter(Boolean)) {
        const f = JSON.parse(line) as { issue: string; detail: unknown };
        findings.push(`${where} ${f.issue} ${JSON.stringify(f.detail)}`);
      }
    }
    const understood = (f: string) =>
      // A Lambda in a VPC must create and delete its network interfaces on any resource (as AWS's own
      // AWSLambdaVPCAccessExecutionRole does).
      /^WorkerRole\/\S+ RESOURCE_STAR \["ec2:AssignPrivateIpAddresses","ec2:CreateNetworkInterface","ec2:DeleteNetworkInterface","ec2:UnassignPrivateIpAddresses"\]$/.test(f)
      // SendCommand is authorized on the instance and on the document separately: this statement holds
      // the tagged instances, WorkerHostScriptsPolicy our documents (a tag condition cannot cover both).
      || /^WorkerRole\/\S+ RESOURCE_MISMATCH \[\{"action":"ssm:SendCommand","required_format":"arn:\*:ssm:\*:\*:document\/\*"\}\]$/.test(f);
    expect(findings.filter((f) => !understood(f))).toEqual([]);
  });

  it('keeps the ack path role to DynamoDB get/put on the state table, approval decisions on the approvals table, and SQS send', () => {
    const statements = roleStatements('SlackRole');
    const actions = statements.flatMap((s) => asArray(s.Action as string[]));
    expect([...new Set(actions)].sort()).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem', 'logs:CreateLogStream', 'logs:PutLogEvents', 'sqs:SendMessage', 'ssm:GetParameter']);
    // UpdateItem and Query on the approvals table; on the state table, Query only on its list index (/kafka status)
    // and UpdateItem only on the command bounds' counters.
    for (const s of statements.filter((x) => asArray(x.Action as string[]).some((a) => a === 'dynamodb:UpdateItem' || a === 'dynamodb:Query'))) {
      if (s.Sid === 'StateListIndex') {
        expect(asArray(s.Action as string[])).toEqual(['dynamodb:Query']);
        expect(JSON.stringify(s.Resource)).toContain('/index/list-index');
      } else if (s.Sid === 'CommandBudgetCounters') {
        expect(asArray(s.Action as string[])).toEqual(['dynamodb:UpdateItem']);
        expect(s.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['cmd-budget:*'] } });
      } else expect(s.Resource).toEqual({ 'Fn::GetAtt': ['ApprovalsTable', 'Arn'] });
    }
    const alerts = roleStatements('AlertsRole').flatMap((s) => asArray(s.Action as string[]));
    // The alerts intake writes to DynamoDB only to store a payload too large for a queue message: new spill:* items.
    const puts = roleStatements('AlertsRole').filter((s) => asArray(s.Action as string[]).some((a) => a.startsWith('dynamodb:')));
    expect(puts.map((s) => asArray(s.Action as string[]))).toEqual([['dynamodb:PutItem']]);
    expect(puts[0]!.Resource).toEqual({ 'Fn::GetAtt': ['StateTable', 'Arn'] });
    expect(puts[0]!.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['spill:*'] } });
    expect(alerts.filter((a) => a.startsWith('ssm:'))).toEqual(['ssm:GetParameter']);
  });

  it('has a Slack app manifest whose command and interactivity URLs are routes of this API', () => {
    const manifest = readFileSync('slack-app-manifest.yml', 'utf8');
    const routes = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => String(r.Properties.RouteKey).replace(/^POST /, ''));
    expect(manifest).toMatch(/- command: \/kafka\n\s+url: https:\/\/REPLACE-ME\/slack\/events\n/);
    const urls = [...manifest.matchAll(/(?:url|request_url): https:\/\/REPLACE-ME(\/\S+)/g)].map((m) => m[1]);
    expect(urls).toEqual(['/slack/events', '/slack/interactivity']);
    for (const u of urls) expect(routes).toContain(u);
    for (const scope of ['chat:write', 'commands', 'files:write', 'usergroups:read', 'channels:history', 'groups:history', 'channels:join']) expect(manifest).toContain(`- ${scope}\n`);
  });

  it('bundles each function under 3 MB, and the Slack bundle carries no kafkajs, host executor or diagnosis', () => {
    const zips = ['slack', 'alerts', 'cloudwatch', 'worker'].map((f) => join(outDir, `${f}.zip`));
    for (const z of zips) {
      expect(statSync(z).size, z).toBeLessThan(3 * 1024 * 1024);
      const total = [...readZip(z).values()].reduce((n, b) => n + b.length, 0);
      expect(total, `${z} unzipped`).toBeLessThan(3 * 1024 * 1024);
    }
    const slack = readZip(join(outDir, 'slack.zip'));
    const code = slack.get('handlers/slack.mjs')!.toString('utf8');
    expect(code.length).toBeGreaterThan(100_000);
    // includes() rather than toContain(): a failure must not print a 1 MB bundle.
    expect(code.includes('KafkaJSError'), 'kafkajs in the Slack bundle').toBe(false);
    // The SSM client is there for Powertools Parameters (secrets), the Run Command executor is not.
    expect(code.includes('SendCommand failed'), 'SSM executor in the Slack bundle').toBe(false);
    expect(code.includes('no host script'), 'host scripts in the Slack bundle').toBe(false);
    expect(code.includes('fatal offset-index append'), 'diagnosis in the Slack bundle').toBe(false);
    // Approve/Reject/Cancel run on the ack path, the operations themselves only in the worker.
    expect(code.includes('ops:approve'), 'approval buttons handled in the Slack bundle').toBe(true);
    expect(code.includes('replication-offset-checkpoint'), 'operations code in the Slack bundle').toBe(false);
    expect([...slack.keys()].filter((k) => k.startsWith('runbooks/')).length).toBeGreaterThan(0);
    const worker = readZip(join(outDir, 'worker.zip')).get('handlers/worker.mjs')!.toString('utf8');
    expect(worker.includes('fatal offset-index append'), 'diagnosis bundled into the worker').toBe(true);
    // kafkajs is bundled (not left as a run-time require: a Lambda package has no node_modules).
    expect(worker.includes('KafkaJSError'), 'kafkajs bundled into the worker').toBe(true);
    expect(worker.includes('replication-offset-checkpoint'), 'operations bundled into the worker').toBe(true);
    expect(worker.includes('SendCommand failed') && worker.includes('no host script'), 'SSM executor and host scripts bundled into the worker').toBe(true);
  });

  it('bundles no approvals code into the alert intake functions (it is on the Slack ack path, where these strings are found)', () => {
    // Distinctive strings of lib/approvals: policy.ts (a module-level schema, so not tree-shaken
    // once anything imports the module) and service.ts.
    const approvals = ['configure approverUserIds', 'the plan is too large to store for approval'];
    const slack = readZip(join(outDir, 'slack.zip')).get('handlers/slack.mjs')!.toString('utf8');
    for (const s of approvals) expect(slack.includes(s), `"${s}" in the Slack bundle (the marker must be findable)`).toBe(true);
    for (const fn of ['alerts', 'cloudwatch']) {
      const code = readZip(join(outDir, `${fn}.zip`)).get('handlers/alerts.mjs')!.toString('utf8');
      expect(code.length).toBeGreaterThan(10_000);
      for (const s of approvals) expect(code.includes(s), `approvals code ("${s}") in the ${fn} bundle`).toBe(false);
    }
  });
});
