// The fault-injection suite (jobs.test.ts says the rule): the 'execute' group of
// scenarios.ts, in a file of its own so it runs beside the other groups.
import { faultGroup } from './scenarios.ts';

faultGroup('execute');
