// The little markdown of the catalogs' rules text (rules.body, rules.toggle.*), drawn as
// DOM nodes: "## " headings, paragraphs separated by blank lines, "* " bullet items (an
// item may go on over the following, indented lines) and **bold**.  Everything else,
// quotes included, is text.  Catalog text only ever becomes text nodes (never HTML), so
// a translation cannot put markup or script on the page.

const HEADING = /^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const BULLET = /^[ \t]*[*-][ \t]+(.*)$/;
const BOLD = /\*\*(.+?)\*\*/g;

/** Append `text` to `parent`: text nodes, and <strong> for each **bold** part. */
export function appendInline(parent, text) {
  let at = 0;
  for (const match of text.matchAll(BOLD)) {
    if (match.index > at) parent.append(document.createTextNode(text.slice(at, match.index)));
    const strong = document.createElement("strong");
    strong.textContent = match[1];
    parent.append(strong);
    at = match.index + match[0].length;
  }
  if (at < text.length) parent.append(document.createTextNode(text.slice(at)));
  return parent;
}

function element(tag, lines) {
  // Lines of one paragraph or item are one run of text (a soft line break is a space).
  return appendInline(document.createElement(tag), lines.join(" "));
}

/** `text` as a DocumentFragment.  `headingLevel` is the level "## " becomes (a "# "
 * heading one above it), so that the text fits under the heading of where it is shown. */
export function renderMarkdown(text, { headingLevel = 2 } = {}) {
  const fragment = document.createDocumentFragment();
  let paragraph = null; // the lines of the paragraph being read
  let list = null; // the <ul> being filled
  let item = null; // the lines of its item being read

  const endItem = () => {
    if (item) list.append(element("li", item));
    item = null;
  };
  const endBlock = () => {
    if (paragraph) fragment.append(element("p", paragraph));
    paragraph = null;
    endItem();
    if (list) fragment.append(list);
    list = null;
  };

  for (const raw of String(text ?? "").split(/\r?\n/)) {
    const line = raw.trim();
    if (!line) {
      endBlock();
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      endBlock();
      const level = Math.min(6, Math.max(1, headingLevel + heading[1].length - 2));
      fragment.append(element(`h${level}`, [heading[2]]));
      continue;
    }
    const bullet = BULLET.exec(raw);
    if (bullet) {
      if (paragraph) endBlock();
      endItem();
      list ??= document.createElement("ul");
      item = [bullet[1].trim()];
      continue;
    }
    if (item) {
      item.push(line); // an item's next line (indented, or lazily not)
      continue;
    }
    paragraph ??= [];
    paragraph.push(line);
  }
  endBlock();
  return fragment;
}
