/**
 * Deliveries per hour by outcome for the last 24 hours (uPlot bars). The data comes from the
 * history API itself (newest first, at most ten pages of 100): no aggregate route is needed at
 * the console's scale, and the cost is stated in docs/console.md.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Delivery {
  createdAt: string;
  statusCode: number;
}

function hourlyOutcomes(records: Delivery[], now = Date.now()): [number[], number[], number[]] {
  const hour = 3_600_000;
  const start = Math.floor(now / hour) * hour - 23 * hour;
  const xs = Array.from({ length: 24 }, (_, i) => (start + i * hour) / 1000);
  const ok = new Array<number>(24).fill(0);
  const failed = new Array<number>(24).fill(0);
  for (const r of records) {
    const i = Math.floor((Date.parse(r.createdAt) - start) / hour);
    if (i < 0 || i > 23) continue;
    if (r.statusCode >= 200 && r.statusCode < 300) ok[i] = (ok[i] ?? 0) + 1;
    else failed[i] = (failed[i] ?? 0) + 1;
  }
  return [xs, ok, failed];
}

export function DeliveriesChart({ records }: { records: Delivery[] }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!host.current) return;
    const data = hourlyOutcomes(records);
    const element = host.current;
    const width = () => Math.max(260, Math.min(900, element.clientWidth || 600));
    const bars = uPlot.paths.bars?.({ size: [0.8, 40] });
    const plot = new uPlot(
      {
        width: width(),
        height: 220,
        title: 'Deliveries per hour (last 24 h)',
        scales: { x: { time: true } },
        series: [
          {},
          { label: 'delivered (2xx)', stroke: '#1a7f37', fill: 'rgba(26,127,55,0.5)', paths: bars },
          { label: 'failed', stroke: '#cf222e', fill: 'rgba(207,34,46,0.5)', paths: bars },
        ],
      },
      data,
      element,
    );
    // Follow the container's width, so the chart never pushes the page sideways on a phone.
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
