// The two text-analysis packages ship plain CommonJS without type declarations.
declare module 'wink-porter2-stemmer' {
  /** Porter2 (Snowball English) stem of one lowercase word. */
  function stem(word: string): string;
  export = stem;
}

declare module 'stopword' {
  /** English stopwords (lowercase). */
  export const eng: string[];
}
