import fs from 'node:fs';

/** util-linux's setpriv, present on Debian and most Linux systems. */
const SETPRIV = '/usr/bin/setpriv';
let setprivAvailable: boolean | undefined;

/**
 * The command line that runs `bin args` so that the kernel kills it when this process dies.
 *
 * A worker killed with SIGKILL cannot stop its children itself: without this an ffmpeg it had
 * started keeps writing into the sound's folder after another worker has taken the job over (and
 * cleaned up). `setpriv --pdeathsig KILL` sets PR_SET_PDEATHSIG before exec. Where setpriv is
 * missing (other systems), the command runs as it is.
 */
export function dieWithParent(bin: string, args: readonly string[]): { command: string; args: string[] } {
  setprivAvailable ??= process.platform === 'linux' && fs.existsSync(SETPRIV);
  if (!setprivAvailable) return { command: bin, args: [...args] };
  return { command: SETPRIV, args: ['--pdeathsig', 'KILL', '--', bin, ...args] };
}
