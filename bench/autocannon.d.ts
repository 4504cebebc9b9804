// The part of autocannon's programmatic API that the benchmarks use (the package ships no types).
declare module 'autocannon' {
  namespace autocannon {
    interface Options {
      url: string;
      connections?: number;
      pipelining?: number;
      /** Seconds. */
      duration?: number;
      /** Requests to send in all; when set, duration is ignored. */
      amount?: number;
      method?: string;
      headers?: Record<string, string>;
      /** Responses whose body differs count as mismatches. */
      expectBody?: string;
      /** Seconds before an unanswered request counts as a timeout. */
      timeout?: number;
    }

    /** Distribution of one quantity over the run, e.g. latency in milliseconds. */
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      p50: number;
      p90: number;
      p97_5: number;
      p99: number;
      total: number;
    }

    interface Result {
      url: string;
      connections: number;
      duration: number;
      errors: number;
      timeouts: number;
      mismatches: number;
      non2xx: number;
      resets: number;
      statusCodeStats: Record<string, { count: number }>;
      latency: Histogram;
      /** Requests per second; `total` is the number of completed requests. */
      requests: Histogram & { sent: number };
      throughput: Histogram;
    }
  }

  /** Starts a run; the returned tracker is also a promise of the result. */
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;

  export default autocannon;
}
