// What the page says when its WebAssembly stops on a trap rather than a panic. A panic
// runs the Rust hook, which shows it; a trap does not: running out of memory (an
// allocation that wasm32's 4 GiB cannot give) aborts, and a trap ends the call that hit
// it with a `WebAssembly.RuntimeError` and nothing else. Without this the page sat on its
// last progress line ("Comparing… 90 %") forever. Plain JavaScript, so that it still
// runs when the module's own state can no longer be trusted.

// A page's wasm32 memory holds at most 4 GiB; within this of it, a trap is the memory
// running out (what is left cannot hold a capture's next working buffer).
const FULL = 4 * 1024 ** 3 - 64 * 1024 ** 2;

/** The page's message for a trap, given the module's memory size in bytes then. */
export function trapMessage(memoryBytes, error) {
  if (memoryBytes >= FULL) {
    return 'The inspector ran out of memory: a web page\u2019s WebAssembly holds at most 4 GiB, and what is open needs more ' +
      '(comparing two long captures holds both files and a byte a frame for each pass of each). ' +
      'Reload the page to open one capture at a time; `sgpt diff A B` compares captures of any length on the command line.';
  }
  const what = error && error.message ? ` (${error.message})` : '';
  return `The inspector stopped on an error in its WebAssembly${what}. Reload the page to continue.`;
}

/** Shows a trap as the page's error, once, unless a panic has shown one already. */
export function watchTraps(memory) {
  const show = (error) => {
    if (!(error instanceof WebAssembly.RuntimeError)) return;
    const body = document.body;
    if (body.dataset.state === 'error') return;
    body.dataset.state = 'error';
    body.dataset.trapped = 'true';
    const element = document.getElementById('error');
    if (element) {
      element.textContent = trapMessage(memory.buffer.byteLength, error);
      element.hidden = false;
    }
  };
  // A trap in an event handler reaches `error`; one in a future's poll rejects a promise.
  addEventListener('error', (event) => show(event.error));
  addEventListener('unhandledrejection', (event) => show(event.reason));
}
