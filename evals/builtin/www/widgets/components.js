// Web components with shadow roots: a star rating and a review form that reads it.
class StarRating extends HTMLElement {
  constructor() {
    super();
    this.value = 0;
    const root = this.attachShadow({mode: 'open'});
    root.innerHTML = '<style>button[aria-pressed=true]{background:#fc3}</style>' +
      '<div role="group" aria-label="Rating">' +
      [1, 2, 3, 4, 5].map(n => `<button type="button" data-n="${n}" aria-pressed="false">` +
        `${n} star${n > 1 ? 's' : ''}</button>`).join('') + '</div><p id="said"></p>';
    root.querySelectorAll('button').forEach(b => b.addEventListener('click', () => {
      this.value = Number(b.dataset.n);
      root.querySelectorAll('button').forEach(x =>
        x.setAttribute('aria-pressed', String(Number(x.dataset.n) <= this.value)));
      root.getElementById('said').textContent = `You chose ${this.value} of 5.`;
    }));
  }
}
class ReviewForm extends HTMLElement {
  constructor() {
    super();
    const root = this.attachShadow({mode: 'open'});
    root.innerHTML = '<form><p><label for="who">Your name</label> <input id="who"></p>' +
      '<p><label for="text">Your review</label><br><textarea id="text" rows="4"></textarea></p>' +
      '<p><button type="submit">Post review</button></p><p id="out" role="status"></p></form>';
    root.querySelector('form').addEventListener('submit', async e => {
      e.preventDefault();
      const stars = document.querySelector('star-rating').value;
      const r = await fetch('/widgets/api/review', {method: 'POST',
        headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({stars, name: root.getElementById('who').value,
                              text: root.getElementById('text').value})});
      const out = await r.json();
      root.getElementById('out').textContent = out.ok ? 'Thank you, your review is posted.'
        : 'Not posted: ' + out.error;
    });
  }
}
customElements.define('star-rating', StarRating);
customElements.define('review-form', ReviewForm);
