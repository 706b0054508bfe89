// earshot: the interactive waveform of a sound page and one-at-a-time players. Progressive: without
// this script the page shows the waveform image and the browser's own player.
(() => {
  // One preview at a time: starting a player pauses the others (the similar sounds' small players).
  document.addEventListener(
    'play',
    (event) => {
      for (const audio of document.querySelectorAll('audio')) {
        if (audio !== event.target && !audio.paused) audio.pause();
      }
    },
    true,
  );

  const formatTime = (t) => {
    const s = Math.max(0, t);
    const m = Math.floor(s / 60);
    const rest = s - m * 60;
    return `${m}:${rest < 10 ? '0' : ''}${rest.toFixed(1)}`;
  };

  /** Min/max per pixel column from audiowaveform's interleaved pairs, scaled to -1..1. */
  function columns(peaks, width) {
    const pairs = peaks.length;
    const scale = peaks.bits === 16 ? 32768 : 128;
    const out = new Float32Array(width * 2);
    for (let x = 0; x < width; x++) {
      const from = Math.floor((x * pairs) / width);
      const to = Math.max(from + 1, Math.floor(((x + 1) * pairs) / width));
      let lo = 0;
      let hi = 0;
      for (let i = from; i < to && i < pairs; i++) {
        lo = Math.min(lo, peaks.data[2 * i]);
        hi = Math.max(hi, peaks.data[2 * i + 1]);
      }
      out[2 * x] = lo / scale;
      out[2 * x + 1] = hi / scale;
    }
    return out;
  }

  function setUp(box) {
    const audio = document.getElementById('player');
    const image = box.querySelector('img');
    if (!audio) return;
    const canvas = document.createElement('canvas');
    const name = image ? image.alt.replace(/^Waveform of /, '') : 'the sound';
    canvas.className = 'wave-canvas';
    canvas.tabIndex = 0;
    canvas.setAttribute('role', 'slider');
    canvas.setAttribute('aria-label', `Position in ${name}`);
    canvas.setAttribute('aria-valuemin', '0');
    let peaks = null;
    let cols = null;
    const duration = () =>
      Number.isFinite(audio.duration) && audio.duration > 0
        ? audio.duration
        : Number(box.dataset.duration) || 0;

    function draw() {
      const ratio = window.devicePixelRatio || 1;
      const width = Math.max(1, Math.round(canvas.clientWidth * ratio));
      const height = Math.max(1, Math.round(canvas.clientHeight * ratio));
      if (canvas.width !== width || canvas.height !== height || !cols) {
        canvas.width = width;
        canvas.height = height;
        cols = columns(peaks, width);
      }
      const ctx = canvas.getContext('2d');
      const played = duration() ? (audio.currentTime / duration()) * width : 0;
      ctx.clearRect(0, 0, width, height);
      const mid = height / 2;
      for (let x = 0; x < width; x++) {
        ctx.fillStyle = x < played ? '#0b5cad' : '#7d8896';
        const top = mid - cols[2 * x + 1] * mid;
        const bottom = mid - cols[2 * x] * mid;
        ctx.fillRect(x, top, 1, Math.max(1, bottom - top));
      }
      ctx.fillStyle = '#1d232b';
      ctx.fillRect(Math.min(width - 2, played), 0, 2 * ratio, height);
      const d = duration();
      canvas.setAttribute('aria-valuemax', d.toFixed(1));
      canvas.setAttribute('aria-valuenow', audio.currentTime.toFixed(1));
      canvas.setAttribute('aria-valuetext', `${formatTime(audio.currentTime)} of ${formatTime(d)}`);
    }

    let frame = 0;
    const redraw = () => {
      if (!frame)
        frame = requestAnimationFrame(() => {
          frame = 0;
          draw();
          if (!audio.paused) redraw();
        });
    };
    const seek = (time) => {
      const d = duration();
      if (!d) return;
      audio.currentTime = Math.min(Math.max(0, time), d);
      redraw();
    };

    canvas.addEventListener('click', (event) => {
      const rect = canvas.getBoundingClientRect();
      seek(((event.clientX - rect.left) / rect.width) * duration());
    });
    canvas.addEventListener('keydown', (event) => {
      const d = duration();
      // A twentieth of the sound per arrow key, PageUp/PageDown a quarter.
      const step = Math.max(0.01, d / 20);
      const moves = {
        ArrowRight: audio.currentTime + step,
        ArrowUp: audio.currentTime + step,
        ArrowLeft: audio.currentTime - step,
        ArrowDown: audio.currentTime - step,
        PageUp: audio.currentTime + d / 4,
        PageDown: audio.currentTime - d / 4,
        Home: 0,
        End: d,
      };
      if (event.key in moves) {
        event.preventDefault();
        seek(moves[event.key]);
      } else if (event.key === ' ' || event.key === 'Enter') {
        event.preventDefault();
        if (audio.paused) audio.play();
        else audio.pause();
      }
    });
    for (const type of ['play', 'timeupdate', 'seeked', 'loadedmetadata'])
      audio.addEventListener(type, redraw);
    window.addEventListener('resize', () => {
      cols = null;
      redraw();
    });

    fetch(box.dataset.peaks, { credentials: 'same-origin' })
      .then((res) => (res.ok ? res.json() : Promise.reject(new Error(`peaks: ${res.status}`))))
      .then((json) => {
        if (!Array.isArray(json.data) || json.data.length < 2) return;
        peaks = { data: json.data, length: Math.floor(json.data.length / 2), bits: json.bits };
        box.appendChild(canvas);
        box.classList.add('live');
        draw();
      })
      .catch(() => {
        // No peaks file: the waveform image stays, and the player's own bar seeks.
      });
  }

  for (const box of document.querySelectorAll('.waveform[data-peaks]')) setUp(box);
})();
