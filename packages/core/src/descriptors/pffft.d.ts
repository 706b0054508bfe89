// @echogarden/pffft-wasm ships no type declarations; this covers its Emscripten factory.
declare module '@echogarden/pffft-wasm/simd' {
  const PFFFT: () => Promise<unknown>;
  export default PFFFT;
}
