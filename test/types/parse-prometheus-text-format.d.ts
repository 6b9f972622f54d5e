// The metric families parse-prometheus-text-format returns, as the tests read them.
declare module 'parse-prometheus-text-format' {
  export interface PrometheusMetric {
    value?: string;
    labels?: Record<string, string>;
    /** Histograms: the cumulative count per upper bound (`le`), the count and the sum. */
    buckets?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  export interface PrometheusFamily {
    name: string;
    help: string;
    type: string;
    metrics: PrometheusMetric[];
  }
  export default function parsePrometheusTextFormat(text: string): PrometheusFamily[];
}
