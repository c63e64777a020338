// The host path rule lives with the config (which accepts paths by it too);
// the scripts' side of it is here.
import { HOST_PATH } from '../config/host-path.ts';

export { HOST_PATH, isHostPath } from '../config/host-path.ts';

/** The line both shell scripts carry (a test checks it is there, unchanged). */
export const HOST_PATH_SHELL_LINE = `KR_PATH_RE='^${HOST_PATH}$'`;
