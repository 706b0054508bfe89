// Worker threads do not inherit the tsx loader of their parent: register it, then load the real entry,
// whose URL createTsWorker passes as the last argv entry.
import { register } from 'tsx/esm/api';

register();
await import(process.argv[process.argv.length - 1]);
