// Upload progress for /upload/: sends the same form with XMLHttpRequest so that the transfer's
// progress can be shown. Without this script the form posts normally and works the same.
(() => {
  const form = document.getElementById('upload-form');
  const bar = document.getElementById('upload-progress');
  const status = document.getElementById('upload-status');
  if (!form || !bar || !status || !window.FormData || !window.XMLHttpRequest) return;
  form.addEventListener('submit', (event) => {
    const file = form.querySelector('input[type=file]');
    if (!file?.files || file.files.length === 0) return; // the server says what is missing
    event.preventDefault();
    const button = form.querySelector('button[type=submit]');
    if (button) button.disabled = true;
    bar.hidden = false;
    bar.value = 0;
    let lastSaid = -1;
    const xhr = new XMLHttpRequest();
    xhr.open('POST', form.action);
    xhr.upload.addEventListener('progress', (e) => {
      if (!e.lengthComputable) return;
      const percent = Math.floor((e.loaded / e.total) * 100);
      bar.value = percent;
      // Screen readers hear every 10 %, not every event.
      if (percent - lastSaid >= 10 || percent === 100) {
        lastSaid = percent;
        status.textContent = `Sent ${percent} % of ${file.files[0].name}`;
      }
    });
    xhr.addEventListener('load', () => {
      if (xhr.status >= 200 && xhr.status < 300 && xhr.responseURL) {
        status.textContent = 'Upload complete. Opening the description form…';
        window.location.assign(xhr.responseURL);
        return;
      }
      // The server's page says what was wrong: show its message here.
      const page = new DOMParser().parseFromString(xhr.responseText, 'text/html');
      const alert = page.querySelector('[role=alert], .field-error, main p');
      status.textContent = `The upload was refused: ${alert ? alert.textContent : `status ${xhr.status}`}`;
      if (button) button.disabled = false;
    });
    xhr.addEventListener('error', () => {
      status.textContent = 'The connection failed during the upload. Try again.';
      if (button) button.disabled = false;
    });
    xhr.send(new FormData(form));
  });
})();
