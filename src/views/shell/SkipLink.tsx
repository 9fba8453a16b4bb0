import type { RefObject } from 'react';

/** The id of the page's main content, where the skip link leads. */
export const MAIN_CONTENT_ID = 'main-content';

/**
 * 'Skip to content': the keyboard's first stop, shown while it has the focus, which moves the
 * focus past the top bar and the sidebar to the page (issue 29). Before the scripts have run it
 * is a plain link to the content's id. Once they have, it focuses the content itself, which takes
 * the focus for that moment only (as GOV.UK's skip link does): the content does not become a tab
 * stop of its own.
 */
export function SkipLink({ target }: { target: RefObject<HTMLElement | null> }) {
  return (
    <a
      className="tp-skip-link"
      href={`#${MAIN_CONTENT_ID}`}
      onClick={(event) => {
        const content = target.current;
        if (!content) return;
        event.preventDefault();
        if (!content.hasAttribute('tabindex')) {
          content.setAttribute('tabindex', '-1');
          content.addEventListener('blur', () => content.removeAttribute('tabindex'), {
            once: true,
          });
        }
        content.focus();
      }}
    >
      Skip to content
    </a>
  );
}
