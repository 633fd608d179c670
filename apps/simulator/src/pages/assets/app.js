// Progressive enhancement only: every page works without this file (copying then means selecting the text).
(() => {
  'use strict';

  // Copy buttons: data-copy names the element whose text is copied.
  document.addEventListener('click', async (event) => {
    const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
    if (!button) return;
    const source = document.getElementById(button.getAttribute('data-copy') || '');
    if (!source) return;
    const text = source.textContent || '';
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const range = document.createRange();
      range.selectNodeContents(source);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      document.execCommand('copy');
    }
    const label = button.textContent;
    button.textContent = 'Copied';
    setTimeout(() => { button.textContent = label; }, 1500);
  });

  // Forms that do something hard to undo ask first.
  document.addEventListener('submit', (event) => {
    const form = event.target;
    if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) event.preventDefault();
  });

  // "Random realistic scores": a plausible result for the test's length and time.
  const normal = () => {
    let u = 0;
    let v = 0;
    while (u === 0) u = Math.random();
    while (v === 0) v = Math.random();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
  const clamp = (value, min, max) => Math.min(max, Math.max(min, value));
  document.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('[data-random-scores]') : null;
    if (!button) return;
    const form = button.closest('form');
    if (!form) return;
    const total = Number(form.dataset.questions) || 20;
    const seconds = (Number(form.dataset.minutes) || 20) * 60;
    const skill = clamp(0.68 + 0.16 * normal(), 0.08, 0.99);
    const answered = clamp(total - Math.floor(Math.random() * Math.max(1, Math.round(total * 0.12))), 1, total);
    const correct = clamp(Math.round(answered * skill), 0, answered);
    const set = (name, value) => {
      const input = form.elements.namedItem(name);
      if (input) input.value = String(value);
    };
    set('questionsTotal', total);
    set('questionsAnswered', answered);
    set('questionsCorrect', correct);
    set('questionsIncorrect', answered - correct);
    set('scorePercentage', Math.round((correct / total) * 1000) / 10);
    set('speedCompleted', Math.round(clamp(seconds * (0.55 + 0.3 * Math.random()), 30, seconds)));
  });
})();
