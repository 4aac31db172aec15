// A form's own checks (a required field, a number's range and step) worded by the page in its
// language, not by the browser in the browser's.

import { t } from "./i18n.js";

/** What is wrong with `field` in the page's words, or "" when nothing is. */
export function problemOf(field) {
  const state = field.validity;
  if (state.valid || state.customError) return "";
  if (state.valueMissing) return t("form.required");
  if (state.badInput) return t("form.number");
  if (state.rangeUnderflow) return t("form.at_least", { min: field.min });
  if (state.rangeOverflow) return t("form.at_most", { max: field.max });
  if (state.stepMismatch) {
    const step = Number(field.step || 1);
    return step === 1 ? t("form.whole") : t("form.multiple", { step: field.step });
  }
  if (state.tooLong) return t("form.too_long", { most: field.maxLength });
  return t("form.invalid");
}

function check(field) {
  field.setCustomValidity("");
  field.setCustomValidity(problemOf(field));
}

/** Word every check of `form`'s fields in the page's language (as they are typed in, and when
 *  the form is sent). */
export function pageChecks(form) {
  form.addEventListener("invalid", (event) => check(event.target), true);
  form.addEventListener("input", (event) => check(event.target));
  return form;
}
