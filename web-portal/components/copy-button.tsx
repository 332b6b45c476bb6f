'use client';
import { useState } from 'react';

/** Copies `text` and says so (or says that it could not) in a live region next to the button. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  }
  return (
    <>
      <button type="button" className="secondary" onClick={() => void copy()}>
        Copy {label}
      </button>
      <span role="status" className="hint">
        {state === 'copied' ? ' Copied.' : state === 'failed' ? ' Could not copy: select the text and copy it.' : ''}
      </span>
    </>
  );
}
