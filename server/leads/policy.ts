/** The business's rules for receiving quote requests that visitors never see. */

/** How long a repeat from the same phone number or email counts as a duplicate (stored, flagged, answered kindly). */
export const DUPLICATE_WINDOW_DAYS = 30;
