// The views webhooks show results through live with the envelope, in the read models (one function for webhooks and the events feed).
export { completionView, reportUrl, resultView, resultViews, type CompletionView, type ResultView } from '#read-models';
