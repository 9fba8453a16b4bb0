import { useMemo } from 'react';
import { renderMarkdown } from '../../../domain/markdown';
import './markdown.css';

/**
 * The document as players will read it (spec §2 Document tab, Preview). `renderMarkdown`
 * sanitizes the HTML, which is what makes inserting it here safe.
 */
export function MarkdownPreview({ markdown }: { markdown: string }) {
  const html = useMemo(() => renderMarkdown(markdown), [markdown]);
  return (
    <article
      className="tp-markdown"
      aria-label="Document preview"
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
}
