// Worker threads do not inherit the tsx loader of their parent: register it, then load the real entry,
// whose URL createModuleWorker passes as the last argv entry. Only sources need it: tsx is a
// development dependency of the repository, never of a built package.
import { register } from 'tsx/esm/api';

register();
await import(process.argv[process.argv.length - 1]);
