// The portal's two notices beside a form or a panel. An error is put into the page when there is one, so that
// role="alert" announces it at once. A status line stays in the page even while empty, because a screen reader
// announces what is written into a role="status" region only if the region was already there.
import type { ReactNode, Ref } from 'react';

/**
 * An error (className "error", role="alert"); nothing while there is none (an empty message). `focusRef` makes it
 * focusable from script (tabIndex -1), for a form that moves the focus to its error.
 */
export function ErrorNotice({ children, focusRef }: { children: ReactNode; focusRef?: Ref<HTMLParagraphElement> }) {
  if (!children) return null;
  return (
    <p className="error" role="alert" tabIndex={focusRef ? -1 : undefined} ref={focusRef}>
      {children}
    </p>
  );
}

/** A status line (className "ok", role="status"), always in the page; empty until something is said in it. */
export function StatusNotice({ children }: { children: ReactNode }) {
  return (
    <p role="status" className="ok">
      {children}
    </p>
  );
}
