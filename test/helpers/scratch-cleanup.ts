// Setup file of every project (vitest.config.ts): run before each test file,
// also when files share their modules (project unit), so each file removes the
// scratch directories it made (test/helpers/scratch.ts).
import { afterAll } from 'vitest';
import { removeScratch } from './scratch.ts';

afterAll(removeScratch);
