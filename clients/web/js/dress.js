// The page's frame in the player's language: index.html's fixed words, the rules link, the
// skip link and the language choice in the header.

import { h } from "./text.js";
import { t, storeLanguage, currentLanguage, LANGUAGES, LANGUAGE_NAMES } from "./i18n.js";

/** The page's fixed words (index.html's [data-i18n] elements), the rules link for the
 *  language, and the language choice in the header (remembered; the page reloads in it). */
export function dressPage() {
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  const language = currentLanguage();
  const rules = document.getElementById("rules-link");
  if (rules) rules.href = language === "en" ? "/web/rules.html" : `/web/rules.${language}.html`;
  document.title = t("app.title");
  // Past the header to your tiles at the table (or to the page's content).
  document.getElementById("skip-link")?.addEventListener("click", (event) => {
    event.preventDefault();
    const app = window.allfives;
    if (app?.table && app.pagesRoot.hidden) app.table.skipTo();
    else {
      const to = [...document.querySelectorAll("#main h2")].find((heading) => heading.offsetParent) ?? document.getElementById("main");
      to.setAttribute("tabindex", "-1");
      to.focus();
    }
  });
  const choice = h("select", { id: "lang-choice", class: "lang-choice", "aria-label": t("app.language") },
    LANGUAGES.map((code) => h("option", { value: code, lang: code, selected: code === language }, LANGUAGE_NAMES[code])));
  choice.addEventListener("change", () => {
    storeLanguage(choice.value);
    location.reload();
  });
  // Last in the header: on a phone, whose header scrolls sideways, the links come first.
  (document.getElementById("me-link") ?? rules)?.after(choice);
}
