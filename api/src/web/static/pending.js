// The processing page (/upload/pending/) follows the pending uploads record: each sound's stage and
// percent are updated once a second; when a sound changes section (processed, failed, waiting for a
// moderator) the page is reloaded to show it there. Without this script, the page's refresh link.
(() => {
  const root = document.getElementById('pending');
  if (!root || !window.fetch) return;
  const source = root.getAttribute('data-source');
  const sectionOf = new Map();
  for (const row of root.querySelectorAll('[data-sound-id]')) {
    sectionOf.set(row.getAttribute('data-sound-id'), row.getAttribute('data-section'));
  }
  const tick = async () => {
    let record;
    try {
      const answer = await fetch(source, {
        credentials: 'same-origin',
        headers: { Accept: 'application/json' },
      });
      if (!answer.ok) return schedule();
      record = await answer.json();
    } catch {
      return schedule();
    }
    const seen = new Map();
    for (const s of record.pending_processing) {
      const section = s.processing_state === 'Failed' ? 'failed' : 'processing';
      seen.set(String(s.id), section);
      const row = root.querySelector(`[data-sound-id="${s.id}"]`);
      if (!row) continue;
      const bar = row.querySelector('progress');
      const text = row.querySelector('.stage');
      if (bar) bar.value = s.processing_percent;
      if (text) text.textContent = stageText(s);
    }
    for (const s of record.pending_moderation) seen.set(String(s.id), 'moderation');
    let changed = seen.size !== sectionOf.size;
    for (const [id, section] of seen) if (sectionOf.get(id) !== section) changed = true;
    if (changed) {
      window.location.reload();
      return;
    }
    if (record.pending_processing.some((s) => s.processing_state !== 'Failed')) schedule();
  };
  const schedule = () => setTimeout(tick, 1000);
  const stageText = (s) =>
    `${s.processing_state}${s.processing_stage ? `: ${s.processing_stage}` : ''} (${s.processing_percent} %)`;
  schedule();
})();
