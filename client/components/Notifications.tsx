/**
 * Toasts (sonner) loaded on demand. The landing page must stay light on phones, and a toast is
 * rare (a visitor sent back by /go), so sonner's code (about 10 KB gzip) is fetched the first
 * time something asks to notify, and its <Toaster /> is mounted in the shell at that moment.
 */
import { useEffect, useState } from "react";
import type * as SonnerModule from "sonner";

type Sonner = typeof SonnerModule;
type Show = (toast: Sonner["toast"]) => void;

/** sonner's documented defaults, stated so an upgrade cannot change them silently. */
export const TOASTS_VISIBLE = 3;
export const TOAST_DURATION_MS = 4000;

let loading: Promise<Sonner> | undefined;
let loaded: Sonner | undefined;
let mount: ((sonner: Sonner) => void) | undefined;
const waiting: Show[] = [];

function load(): Promise<Sonner> {
  loading ??= import("sonner");
  return loading;
}

/** Shows a toast, loading sonner first if this is the first one. */
export function notify(show: Show): void {
  if (loaded) {
    show(loaded.toast);
    return;
  }
  waiting.push(show);
  void load().then((sonner) => mount?.(sonner));
}

/** The shell's toast area: renders nothing until the first notification. */
export function Notifications() {
  const [sonner, setSonner] = useState<Sonner>();
  useEffect(() => {
    mount = setSonner;
    // A page's effect may have asked for a toast before this (parent) effect ran.
    if (loading) void loading.then(setSonner);
    return () => {
      mount = undefined;
    };
  }, []);
  useEffect(() => {
    // Runs after <Toaster /> mounted and subscribed (child effects run first), so nothing is lost.
    if (!sonner) return;
    loaded = sonner;
    for (const show of waiting.splice(0)) show(sonner.toast);
  }, [sonner]);
  if (!sonner) return null;
  const { Toaster } = sonner;
  return <Toaster visibleToasts={TOASTS_VISIBLE} duration={TOAST_DURATION_MS} position="top-center" richColors closeButton />;
}
