// Imports one entry point of the BUILT core (the first argument: `@earshot/core/descriptors`…) in
// a fresh process and prints, as JSON, the packages that loaded: ES modules as the resolve hook
// saw them, CommonJS ones (native addons load through require) from the require cache. With a
// second argument `images` it also renders the images of a short signal, so sharp must load then
// (the check can see a package load).
import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const hook = `
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  port.postMessage(result.url);
  return result;
}`;
const { port1, port2 } = new MessageChannel();
const urls = new Set();
port1.on('message', (url) => urls.add(url));
register(`data:text/javascript,${encodeURIComponent(hook)}`, {
  data: { port: port2 },
  transferList: [port2],
});

const [entry, also] = process.argv.slice(2);
const core = await import(entry);
if (also === 'images') await core.renderImages({ samples: new Float32Array(44100), sampleRate: 44100 });
// The hook's last messages arrive after the import settles.
await new Promise((resolve) => setTimeout(resolve, 200));
port1.close();
const files = [...urls, ...Object.keys(createRequire(import.meta.url).cache)];
const packages = new Set();
for (const file of files) {
  const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
  if (match) packages.add(match[1]);
}
process.stdout.write(JSON.stringify([...packages].sort()));
