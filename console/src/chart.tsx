/**
 * Deliveries per hour by outcome for the last 24 hours (uPlot bars). The data comes from the
 * history API itself (newest first, at most ten pages of 100): no aggregate route is needed at
 * the console's scale, and the cost is stated in docs/console.md.
 *
 * The two outcomes are drawn side by side in each hour (never over each other, so no colour
 * blends), opaque in exactly the legend's colours; the x range has half an hour of room at each
 * end so the first and the newest hour are whole; the chart is as wide as its container and
 * follows it; the legend shows the hovered hour's counts, and the 24 h totals otherwise.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Delivery {
  createdAt: string;
  statusCode: number;
}

const HOUR = 3_600_000;
const DELIVERED = '#1a7f37';
const FAILED = '#cf222e';

function hourlyOutcomes(records: Delivery[], now = Date.now()): [number[], number[], number[]] {
  const start = Math.floor(now / HOUR) * HOUR - 23 * HOUR;
  // Each hour's bars sit over its middle.
  const xs = Array.from({ length: 24 }, (_, i) => (start + i * HOUR + HOUR / 2) / 1000);
  const ok = new Array<number>(24).fill(0);
  const failed = new Array<number>(24).fill(0);
  for (const r of records) {
    const i = Math.floor((Date.parse(r.createdAt) - start) / HOUR);
    if (i < 0 || i > 23) continue;
    if (r.statusCode >= 200 && r.statusCode < 300) ok[i] = (ok[i] ?? 0) + 1;
    else failed[i] = (failed[i] ?? 0) + 1;
  }
  return [xs, ok, failed];
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

export function DeliveriesChart({ records }: { records: Delivery[] }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!host.current) return;
    const data = hourlyOutcomes(records);
    const element = host.current;
    const width = () => Math.max(260, element.clientWidth || 600);
    // Side by side: delivered left of the hour's middle, failed right of it.
    const left = uPlot.paths.bars?.({ size: [0.4, 30], align: -1 });
    const right = uPlot.paths.bars?.({ size: [0.4, 30], align: 1 });
    // Opaque, no outline: exactly the legend's colour; the legend shows the 24 h total off the plot.
    const bars = (
      label: string,
      colour: string,
      paths: uPlot.Series['paths'],
      total: number,
    ): uPlot.Series => ({
      label,
      stroke: colour,
      fill: colour,
      width: 0,
      paths,
      points: { show: false },
      value: (_u, v) => (v === null || v === undefined ? String(total) : String(v)),
    });
    const plot = new uPlot(
      {
        width: width(),
        height: 220,
        title: 'Deliveries per hour (last 24 h)',
        scales: {
          x: {
            time: true,
            range: (_u, min, max) => [min - 1800, max + 1800],
          },
        },
        series: [
          {
            value: (_u, v) =>
              v === null || v === undefined
                ? 'last 24 h'
                : new Date((v - 1800) * 1000).toLocaleString([], {
                    month: 'short',
                    day: 'numeric',
                    hour: '2-digit',
                    minute: '2-digit',
                  }),
          },
          bars('delivered (2xx)', DELIVERED, left, sum(data[1])),
          bars('failed', FAILED, right, sum(data[2])),
        ],
      },
      data,
      element,
    );
    // Follow the container's width, so the chart fills it and never pushes the page sideways.
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 220 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [records]);
  const total = records.length;
  return (
    <figure
      class="chart"
      aria-label={`Deliveries per hour by outcome, ${total} deliveries in the last 24 hours`}
    >
      <div ref={host} />
      <figcaption>
        {total} deliveries in the last 24 hours{total >= 1000 ? ' (the newest 1,000 shown)' : ''}
      </figcaption>
    </figure>
  );
}
