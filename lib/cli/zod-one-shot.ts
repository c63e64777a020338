// For a command that runs once and exits. zod compiles a fast parser for each
// object schema (code generated with `new Function` on its first parse, and
// compiled by V8), which pays off over thousands of parses in a long-running
// process; a one-shot command parses each schema once or twice, so building
// that code is all cost (about 20 ms of CPU in `diagnose`). The flag is read
// when an object schema is created: this module runs before any other loads.
import { config } from 'zod';

config({ jitless: true });
