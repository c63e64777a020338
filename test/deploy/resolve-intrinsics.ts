// Resolves the CloudFormation intrinsics our template uses (Ref, Fn::GetAtt, Fn::Join, Fn::Select,
// Fn::Split, Fn::If over its Conditions) to plausible values, so that a policy linter that reads plain
// IAM JSON sees each policy as IAM would once the stack exists.
type Json = Record<string, unknown>;
const NO_VALUE = Symbol('AWS::NoValue');

/** The template's Conditions, evaluated (Fn::Equals, Fn::Not, Fn::And, Fn::Or, Condition). */
export function evaluateConditions(template: Json): Record<string, boolean> {
  const defs = (template.Conditions ?? {}) as Json;
  const resources = withParameters(template);
  const evaluate = (c: unknown): boolean => {
    const o = c as Json;
    if ('Condition' in o) return evaluate(defs[String(o.Condition)]);
    if ('Fn::Equals' in o) {
      const [a, b] = (o['Fn::Equals'] as unknown[]).map((x) => JSON.stringify(resolveIntrinsics(x, resources, {})));
      return a === b;
    }
    if ('Fn::Not' in o) return !evaluate((o['Fn::Not'] as unknown[])[0]);
    if ('Fn::And' in o) return (o['Fn::And'] as unknown[]).every(evaluate);
    if ('Fn::Or' in o) return (o['Fn::Or'] as unknown[]).some(evaluate);
    throw new Error(`condition not understood: ${JSON.stringify(c)}`);
  };
  return Object.fromEntries(Object.entries(defs).map(([name, c]) => [name, evaluate(c)]));
}

const PSEUDO: Record<string, string> = { 'AWS::Partition': 'aws', 'AWS::Region': 'us-east-1', 'AWS::AccountId': '123456789012', 'AWS::StackName': 'kafka-responder-ci' };

/** What `Ref` and `Fn::GetAtt <name> Arn` return for the resource types our policies name. */
function arnOf(resources: Json, name: string): string {
  const type = (resources[name] as { Type?: string } | undefined)?.Type;
  switch (type) {
    case 'AWS::DynamoDB::Table': return `arn:aws:dynamodb:us-east-1:123456789012:table/${name}`;
    case 'AWS::SQS::Queue': return `arn:aws:sqs:us-east-1:123456789012:${name}`;
    case 'AWS::SNS::Topic': return `arn:aws:sns:us-east-1:123456789012:${name}`;
    case 'AWS::Lambda::Function': return `arn:aws:lambda:us-east-1:123456789012:function:${name}`;
    default: return name;
  }
}

export function resolveIntrinsics(value: unknown, resources: Json, conditions: Record<string, boolean>): unknown {
  const resolve = (v: unknown): unknown => resolveIntrinsics(v, resources, conditions);
  if (Array.isArray(value)) return value.map(resolve).filter((v) => v !== NO_VALUE);
  if (value === null || typeof value !== 'object') return value;
  const o = value as Json;
  if ('Fn::If' in o) {
    const [name, yes, no] = o['Fn::If'] as [string, unknown, unknown];
    if (!(name in conditions)) throw new Error(`unknown condition ${name}`);
    return resolve(conditions[name] ? yes : no);
  }
  if ('Ref' in o) {
    const ref = String(o.Ref);
    if (ref === 'AWS::NoValue') return NO_VALUE;
    const parameter = resources[ref] as { Type?: string; Default?: unknown } | undefined;
    if (parameter?.Type === 'Parameter') return parameter.Default;
    if (ref in PSEUDO) return PSEUDO[ref];
    const type = (resources[ref] as { Type?: string } | undefined)?.Type;
    // Ref of an SSM document is its name; of a queue, its URL; elsewhere the ARN will do for a linter.
    return type === 'AWS::SSM::Document' ? ref : arnOf(resources, ref);
  }
  if ('Fn::GetAtt' in o) {
    const [name] = o['Fn::GetAtt'] as [string, string];
    return arnOf(resources, name);
  }
  if ('Fn::Join' in o) {
    const [sep, parts] = o['Fn::Join'] as [string, unknown[]];
    return parts.map((p) => String(resolve(p))).join(sep);
  }
  if ('Fn::Split' in o) {
    const [sep, text] = o['Fn::Split'] as [string, unknown];
    return String(resolve(text)).split(sep);
  }
  if ('Fn::Select' in o) {
    const [index, list] = o['Fn::Select'] as [number | string, unknown];
    return (resolve(list) as unknown[])[Number(index)];
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, resolve(v)]).filter(([, v]) => v !== NO_VALUE));
}

/** The template's resources, and its Parameters as entries that `Ref` resolves to their default. */
function withParameters(template: Json): Json {
  const parameters = Object.entries((template.Parameters ?? {}) as Record<string, { Default?: unknown }>).map(([name, p]) => [name, { Type: 'Parameter', Default: p.Default }]);
  return { ...Object.fromEntries(parameters), ...((template.Resources ?? {}) as Json) };
}

/** Every IAM policy document of the template, resolved, with where it comes from. */
export function policyDocuments(template: Json): { where: string; document: unknown }[] {
  const resources = withParameters(template);
  const conditions = evaluateConditions(template);
  const resolved = (v: unknown) => resolveIntrinsics(v, resources, conditions);
  const out: { where: string; document: unknown }[] = [];
  for (const [name, r] of Object.entries(resources) as [string, { Type: string; Properties: Json }][]) {
    if (r.Type === 'AWS::IAM::Role') {
      for (const p of (r.Properties.Policies ?? []) as { PolicyName: unknown; PolicyDocument: unknown }[]) {
        out.push({ where: `${name}/${String(resolved(p.PolicyName))}`, document: resolved(p.PolicyDocument) });
      }
    }
    if (r.Type === 'AWS::IAM::Policy' || r.Type === 'AWS::IAM::ManagedPolicy') out.push({ where: name, document: resolved(r.Properties.PolicyDocument) });
  }
  return out;
}
