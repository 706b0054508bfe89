// Completions for the search boxes: fills the <datalist> of every input with data-suggest from the
// suggestions of its last word (tags, most used first; names of sounds when it is the first word).
// Without this script the boxes are plain search boxes.
(() => {
  for (const input of document.querySelectorAll('input[data-suggest]')) {
    const list = document.getElementById(input.getAttribute('list'));
    if (!list) continue;
    let timer;
    let pending;
    input.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        const text = input.value;
        const at = text.lastIndexOf(' ') + 1;
        const head = text.slice(0, at);
        const word = text.slice(at);
        if (word.trim() === '') return list.replaceChildren();
        pending?.abort();
        pending = new AbortController();
        try {
          const url = `${input.dataset.suggest}?q=${encodeURIComponent(word)}`;
          const res = await fetch(url, { signal: pending.signal, credentials: 'same-origin' });
          if (!res.ok) return;
          const found = await res.json();
          const values = found.tags.map((t) => head + t.tag);
          if (head === '') values.push(...found.names.map((n) => n.name));
          list.replaceChildren(
            ...[...new Set(values)].map((value) => {
              const option = document.createElement('option');
              option.value = value;
              return option;
            }),
          );
        } catch {
          // A completion that does not come is no error: the box still searches.
        }
      }, 150);
    });
  }
})();
