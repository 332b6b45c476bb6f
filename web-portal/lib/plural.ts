// Counts in prose: "1 request", "2 requests", "1,024 requests" — English plural rules, the viewer's digit grouping.
const rules = new Intl.PluralRules('en');

/** `n` and the noun in the right number; `plural` for nouns that do not just take an "s". */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${n.toLocaleString()} ${rules.select(n) === 'one' ? singular : plural}`;
}
