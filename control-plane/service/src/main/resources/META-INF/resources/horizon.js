// Horizon's web view: the plan as a Gantt chart, utilization and inference demand over time, and the waiting jobs
// with the planner's explanation. Plain JS against the REST API; no build step.
'use strict';

const TOKEN_KEY = 'horizon.token';
// a new plan every few seconds while ./horizon demo replays a day at speed
const REFRESH_MS = 3000;
const SVG = 'http://www.w3.org/2000/svg';
const ROW = 16;
const LABEL_WIDTH = 110;
const PAST_SECONDS = 2 * 3600;
// Classes keep one colour each everywhere; teams get a stable hue from their name.
const CLASS_COLOURS = {
  TRAINING: '#264653', BATCH_INFERENCE: '#2a9d8f', QUANTIZATION: '#e9c46a',
  REALTIME_INFERENCE: '#e76f51', DEBUG: '#8d99ae', INTERACTIVE: '#9b5de5',
};

// A token may come in the URL (#token=... or ?token=..., for links and headless browsers that cannot type);
// it is moved to sessionStorage and taken out of the address bar so it is not bookmarked or shared.
function takeTokenFromUrl() {
  const fromHash = new URLSearchParams(location.hash.slice(1)).get('token');
  const query = new URLSearchParams(location.search);
  const token = fromHash || query.get('token');
  if (!token) return;
  sessionStorage.setItem(TOKEN_KEY, token);
  query.delete('token');
  history.replaceState(null, '', location.pathname + (query.toString() ? '?' + query : ''));
}

async function api(path) {
  const response = await fetch(path, { headers: { Authorization: 'Bearer ' + sessionStorage.getItem(TOKEN_KEY) } });
  const body = await response.json().catch(() => ({}));
  if (response.status === 401) throw Object.assign(new Error(body.error || 'the token was refused'), { unauthorized: true });
  if (!response.ok) throw new Error(path + ': ' + (body.error || response.status));
  return body;
}

function el(tag, attrs, text) {
  const node = tag === 'svg' || ['rect', 'line', 'text', 'g', 'polyline', 'circle', 'title'].includes(tag)
    ? document.createElementNS(SVG, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

// Teams take the Okabe-Ito colours (told apart with every common colour-vision deficiency) in the order of their names,
// so no two of the first eight teams look alike; a team not listed yet, or past the eighth, a hue from its name.
const TEAM_PALETTE = ['#E69F00', '#56B4E9', '#009E73', '#F0E442', '#0072B2', '#D55E00', '#CC79A7', '#999999'];
let teamOrder = [];

function teamColour(team) {
  const i = teamOrder.indexOf(team);
  if (i >= 0 && i < TEAM_PALETTE.length) return TEAM_PALETTE[i];
  let hash = 0;
  for (const c of team) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  return 'hsl(' + (hash % 360) + ', 55%, 62%)';
}

// The API writes every time as ISO-8601 UTC; the charts work in epoch seconds.
const epochSeconds = iso => (iso == null ? iso : Date.parse(iso) / 1000);

// The plan, its history and the runs with their times in epoch seconds, read once where they come in.
function inSeconds(plan, history, runs) {
  plan.plannedAt = epochSeconds(plan.plannedAt);
  for (const job of plan.running) Object.assign(job, { start: epochSeconds(job.start), estimatedEnd: epochSeconds(job.estimatedEnd) });
  for (const job of plan.pending) {
    Object.assign(job, { plannedStart: epochSeconds(job.plannedStart), startP50At: epochSeconds(job.startP50At), startP90At: epochSeconds(job.startP90At),
      queueAloneP50At: epochSeconds(job.queueAloneP50At), queueAloneP90At: epochSeconds(job.queueAloneP90At) });
  }
  for (const p of history) p.at = epochSeconds(p.at);
  for (const run of runs) Object.assign(run, { startedAt: epochSeconds(run.startedAt), endedAt: epochSeconds(run.endedAt) });
}

function clock(seconds) {
  return new Date(seconds * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

// A time, with its day and month when it is not on now's day: "14:30", "Thu 10 Dec, 06:59" ("Thu, Dec 10, 06:59 AM" in
// en-US; the browser's locale orders and joins the parts). A weekday alone would not say which week: "Sun" 6 days after
// a Monday reads as yesterday. The bands, their tooltips, the queue-alone condition and the charts' axes all use it.
function when(seconds, now) {
  const day = t => new Date(t * 1000).toDateString();
  if (day(seconds) === day(now)) return clock(seconds);
  return new Date(seconds * 1000).toLocaleString([], { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
}

// A sentence of the control plane's (a reason, a band's note) with its ISO-8601 UTC times said as when() says them,
// like every other time on the page.
function inWords(text, now) {
  return text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?Z/g, iso => when(Date.parse(iso) / 1000, now));
}

// A pending job's start band in words: by startP50At with odds 1 in 2, by startP90At with odds 9 in 10.
function bandWords(job, now) {
  return 'starts by ' + when(job.startP50At, now) + ' (' + fromNow(job.startP50At, now) + ') with odds 1 in 2 (P50), by '
    + when(job.startP90At, now) + ' (' + fromNow(job.startP90At, now) + ') with odds 9 in 10 (P90)';
}

const hasBand = job => job.startP50At != null && job.startP90At != null;

// What a job asks for, as ./horizon jobs says it: whole GPUs as a count; per replica a MIG profile ("1x3g.40gb") or a
// time-slicing share in thousandths of a GPU ("2x500m"), which the count (1 a replica) would hide.
function gpusAsked(job) {
  if (job.migProfile) return (job.replicas ?? 1) + 'x' + job.migProfile;
  if (job.gpuMilli) return (job.replicas ?? 1) + 'x' + job.gpuMilli + 'm';
  return String(job.gpus);
}

// A waiting job's planned start, or why the plan gives none, by the rule it filed the job under (another team's job
// carries no rule): work over its team's share is not planned, it runs as fill when GPUs are idle; a held job is in no
// plan until released.
function plannedCell(job, now) {
  if (job.plannedStart) return when(job.plannedStart, now) + ' (' + fromNow(job.plannedStart, now) + ')';
  if (job.heldAt) return 'none: held';
  if (job.rule === 'over-share') return 'none: over its team\'s share, runs as fill';
  return job.rule === 'no-room-in-horizon' ? 'not within the horizon' : 'not planned';
}

// The band as the list gives it: both ends; a P50 whose P90 lies past where the futures end (the note says how far);
// or none, and whether only because the job came after the latest bands (the note, on hover, says why). Where the band
// has no P90, also when the queue alone would start the job were no more work to arrive: a condition, not the band.
// A held job has none, as no plan places it: "held", since when on hover.
function bandCell(job, now) {
  if (job.heldAt) return 'held';
  if (hasBand(job)) {
    return when(job.startP50At, now) + ' – ' + when(job.startP90At, now) + ' (' + fromNow(job.startP50At, now) + ' to '
      + fromNow(job.startP90At, now).replace(/^in /, '') + ')';
  }
  const band = job.startP50At != null ? when(job.startP50At, now) + ' – later (' + fromNow(job.startP50At, now) + ' to past the futures)'
    : job.startBandNote && !job.startBandNote.startsWith('no band yet') ? 'none can be given' : 'no band yet';
  return job.queueAloneP50At == null ? band : band + '; if no more work arrives: ' + when(job.queueAloneP50At, now) + ' – '
    + (job.queueAloneP90At == null ? 'later' : when(job.queueAloneP90At, now));
}

// "45 min", "2 h 40 min", "2 d 3 h", as ./horizon why says a wait
function duration(seconds) {
  const minutes = Math.round(seconds / 60);
  const [h, m, d] = [Math.floor(minutes / 60), minutes % 60, Math.floor(minutes / 1440)];
  if (minutes < 1) return 'under a minute';
  if (minutes < 60) return minutes + ' min';
  if (minutes < 48 * 60) return h + ' h' + (m ? ' ' + m + ' min' : '');
  return d + ' d' + (h % 24 ? ' ' + (h % 24) + ' h' : '');
}

// "in 45 min", "in 2 h 40 min", "in 2 d 3 h", as ./horizon why says it
function fromNow(seconds, now) {
  return Math.round((seconds - now) / 60) <= 0 ? 'now' : 'in ' + duration(seconds - now);
}

// "node-0[0-3]+node-1[5-5:3g.40gb@4]" -> [{node: 'node-0', first: 0, last: 3}, {node: 'node-1', first: 5, last: 5, share: '3g.40gb@4'}]
function slices(placement) {
  return (placement || '').split('+').map(part => /^(.+)\[(\d+)-(\d+)(?::([^\]]+))?\]$/.exec(part)).filter(Boolean)
    .map(m => ({ node: m[1], first: +m[2], last: +m[3], share: m[4] }));
}

// A placement as Slurm's nodelist, ./horizon jobs and the API's reasons (Nodelist.java) say it: "node-1[4]" for one GPU;
// the API's placement field keeps the stored "node-1[4-4]", which slices() parses for the Gantt's rows
function nodelist(placement) {
  return placement.replace(/\[(\d+)-\1([:\]])/g, '[$1$2');
}

// Where in its GPU's row a slice sits, as [top, height] in eighths of the row: a MIG instance by its memory slices
// ("3g.40gb@4": from slice 4, 3 or 4 of 8), a time-slicing share ("500m/40779MiB") by its fraction, stacked in the
// order drawn (sharesSeen counts the shares already on that GPU); whole GPUs fill the row.
function within(slice, sharesSeen) {
  if (!slice.share) return { kind: '', top: 0, height: 8 };
  const mig = /^(\d)g\.\d+gb@(\d)$/.exec(slice.share);
  if (mig) return { kind: ' mig', top: +mig[2], height: Math.max(1, Math.min(+mig[1] === 3 ? 4 : +mig[1], 8 - +mig[2])) };
  const milli = /^(\d+)m\//.exec(slice.share);
  const height = milli ? Math.max(1, Math.round(+milli[1] / 125)) : 4;
  const key = slice.node + '[' + slice.first + ']';
  const top = (sharesSeen.get(key) || 0) % 8;
  sharesSeen.set(key, top + height);
  return { kind: ' share', top, height };
}

// A legend's colour swatch. The colour is set through the CSSOM: the page's Content-Security-Policy (style-src 'self')
// drops style attributes, which left every swatch blank.
function swatch(colour, cls) {
  const node = el('i', cls ? { class: cls } : {});
  node.style.background = colour;
  return node;
}

// the width of the box an SVG sits in, inside its padding, so that charts fill the page without scrolling
function widthFor(svg) {
  const box = svg.parentElement;
  const style = getComputedStyle(box);
  return Math.max(box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight), 600);
}

// another team's job comes without its name (the API shows only what the plan must): it is drawn as that team's work
function jobLabel(job) {
  return job.name ?? (job.team + ' job');
}

function bar(svg, job, x, y, width, height, kind) {
  const g = el('g', { class: 'bar ' + kind + (job.fill ? ' fill' : ''), 'data-job': job.jobId });
  const how = (job.placement ? ' on ' + nodelist(job.placement) : '') + (job.fill ? ', on GPUs lent from inference' : '')
    + (job.endReason ? ', ended ' + job.endReason.toLowerCase() : '');
  g.append(el('title', {}, jobLabel(job) + ' (' + job.team + ', ' + job['class'] + ')' + how));
  g.append(el('rect', { x, y, width: Math.max(width, 2), height, fill: teamColour(job.team), class: 'bar ' + kind }));
  g.append(el('rect', { x, y, width: Math.max(width, 2), height: 3, fill: CLASS_COLOURS[job['class']] || '#000' }));
  // work on GPUs inference lent: a foot in inference's colour, the GPU still being inference's to take back
  if (job.fill && height >= 6) g.append(el('rect', { x, y: y + height - 3, width: Math.max(width, 2), height: 3, class: 'lent' }));
  if (width > 40 && height >= ROW - 2) g.append(el('text', { x: x + 4, y: y + height - 4 }, jobLabel(job)));
  if (job.endReason === 'PREEMPTED' || job.endReason === 'EVICTED') {
    g.append(el('line', { x1: x + width, x2: x + width, y1: y - 1, y2: y + height + 1, class: 'cut ' + job.endReason.toLowerCase() }));
  }
  svg.append(g);
}

// One bar per GPU slice of a placement, each in its GPU's row (a MIG instance or share in its part of the row).
function barsOf(svg, job, from, to, kind, rowOf, x, sharesSeen) {
  for (const s of slices(job.placement)) {
    if (!rowOf.has(s.node)) continue;
    const part = within(s, sharesSeen);
    const y = 20 + (rowOf.get(s.node) + s.first) * ROW + 1 + part.top * (ROW - 2) / 8;
    const h = part.height === 8 ? (s.last - s.first + 1) * ROW - 2 : part.height * (ROW - 2) / 8;
    bar(svg, job, x(from), y, x(to) - x(from), h, kind + part.kind);
  }
}

// Over a waiting job's planned bar: a strip from its P50 to its P90 start, capped at both ends, and a tick at the plan's start.
function startBand(svg, job, x, y, now) {
  const g = el('g', { class: 'band', 'data-job': job.jobId });
  g.append(el('title', {}, jobLabel(job) + ': planned start ' + when(job.plannedStart, now) + '; ' + bandWords(job, now)));
  const from = x(job.startP50At);
  const to = x(job.startP90At);
  // along the top of the row, clear of the bar's label at its bottom
  g.append(el('rect', { x: from, y: y + 2, width: Math.max(to - from, 1), height: 4, class: 'band' }));
  for (const end of [from, to]) g.append(el('line', { x1: end, x2: end, y1: y, y2: y + 8, class: 'band-end' }));
  const tick = x(job.plannedStart);
  g.append(el('line', { x1: tick, x2: tick, y1: y, y2: y + ROW, class: 'planned-start' }));
  svg.append(g);
}

// The GPUs an inference service holds (as its agents last said), in their rows from now: the first n of them for as long as
// its forecast needs n GPUs, at least one planner step. Batch work never runs on them; the plan's own rows show its GPUs
// lent to batch work (the running bars marked as on lent GPUs).
function drawServing(svg, services, nodes, plan, rowOf, x) {
  const gpuAt = new Map();
  for (const n of nodes) for (const g of n.gpus) gpuAt.set(g.uuid, { node: n.name, index: g.index });
  for (const service of services) {
    const held = service.heldOn.map(uuid => gpuAt.get(uuid)).filter(g => g && rowOf.has(g.node))
      .sort((a, b) => rowOf.get(a.node) + a.index - rowOf.get(b.node) - b.index);
    held.forEach((gpu, i) => {
      const stillNeeded = (service.forecast || []).findIndex(demand => Math.ceil(demand) <= i);
      const steps = Math.max(1, stillNeeded < 0 ? plan.horizonSteps : stillNeeded);
      const from = plan.plannedAt;
      const to = from + steps * plan.stepSeconds;
      const y = 20 + (rowOf.get(gpu.node) + gpu.index) * ROW + 1;
      const g = el('g', { class: 'bar serving', 'data-service': service.name });
      g.append(el('title', {}, gpu.node + '[' + gpu.index + '] serves inference service ' + service.name + ' (team ' + service.team
        + '); drawn for as long as its forecast needs ' + (i + 1) + ' GPU' + (i ? 's' : '')));
      g.append(el('rect', { x: x(from), y, width: Math.max(x(to) - x(from), 2), height: ROW - 2, fill: teamColour(service.team), class: 'bar serving' }));
      g.append(el('rect', { x: x(from), y, width: Math.max(x(to) - x(from), 2), height: 3, fill: CLASS_COLOURS.REALTIME_INFERENCE }));
      if (x(to) - x(from) > 60) g.append(el('text', { x: x(from) + 4, y: y + ROW - 6 }, 'serving ' + service.name));
      svg.append(g);
    });
  }
}

function drawGantt(plan, nodes, runs, services) {
  const svg = document.getElementById('gantt');
  svg.replaceChildren();
  const now = plan.plannedAt;
  const start = now - PAST_SECONDS;
  const end = now + plan.stepSeconds * plan.horizonSteps;
  const width = widthFor(svg);
  const x = t => LABEL_WIDTH + (Math.min(Math.max(t, start), end) - start) / (end - start) * (width - LABEL_WIDTH - 10);
  const gpuCount = new Map(nodes.map(n => [n.name, n.gpus.length]));
  const rowOf = new Map();
  let rows = 0;
  for (const name of plan.nodes) {
    rowOf.set(name, rows);
    for (let i = 0; i < (gpuCount.get(name) || 0); i++) {
      svg.append(el('text', { x: 4, y: 20 + (rows + i) * ROW + ROW - 4 }, name + '[' + i + ']'));
    }
    rows += gpuCount.get(name) || 0;
  }
  const planned = plan.pending.filter(p => p.plannedStart);
  const height = 20 + (rows + planned.length + (planned.length ? 1 : 0)) * ROW + 4;
  svg.setAttribute('width', width);
  svg.setAttribute('height', height);
  // the horizon runs past midnight: the first hour label of another day than now's carries its date
  let dayBefore = now;
  let labelEnd = -Infinity;
  for (let t = Math.ceil(start / 3600) * 3600; t <= end; t += 3 * 3600) {
    svg.append(el('line', { x1: x(t), x2: x(t), y1: 14, y2: height, class: 'axis' }));
    const label = el('text', { y: 11 }, when(t, dayBefore));
    svg.append(label);
    // kept inside the chart, and left out where it would run into the one before (a dated label is long)
    const left = Math.min(x(t) - 14, width - label.getComputedTextLength());
    if (left < labelEnd + 6) {
      label.remove();
    } else {
      label.setAttribute('x', left);
      labelEnd = left + label.getComputedTextLength();
      dayBefore = t;
    }
  }
  // past runs: one row per node of a run, drawn once per job and run; those still running are the plan's
  const pastSeen = new Set();
  for (const run of runs.filter(r => r.endedAt)) {
    const key = run.jobId + '@' + run.startedAt;
    if (pastSeen.has(key)) continue;
    pastSeen.add(key);
    barsOf(svg, run, run.startedAt, run.endedAt, 'past', rowOf, x, new Map());
  }
  const sharesSeen = new Map();
  for (const job of plan.running) barsOf(svg, job, job.start, job.estimatedEnd || now + plan.stepSeconds, 'running', rowOf, x, sharesSeen);
  drawServing(svg, services, nodes, plan, rowOf, x);
  if (planned.length) {
    svg.append(el('text', { x: 4, y: 20 + rows * ROW + ROW - 4 }, 'waiting, at the planned start:'));
  }
  planned.forEach((job, i) => {
    const y = 20 + (rows + 1 + i) * ROW;
    svg.append(el('text', { x: 4, y: y + ROW - 4 }, job.migProfile || job.gpuMilli ? gpusAsked(job) : job.gpus + ' GPU' + (job.gpus > 1 ? 's' : '')));
    bar(svg, job, x(job.plannedStart), y + 1, x(job.plannedStart + job.estimatedSeconds) - x(job.plannedStart), ROW - 2, 'planned');
    if (hasBand(job)) startBand(svg, job, x, y, now);
  });
  svg.append(el('line', { x1: x(now), x2: x(now), y1: 14, y2: height, class: 'now' }));

  const teams = [...new Set([...plan.running, ...plan.pending, ...services].map(j => j.team))].sort();
  document.getElementById('legend').replaceChildren(...teams.map(team => {
    const item = el('span', { class: 'team' });
    item.append(swatch(teamColour(team)), 'team ' + team);
    return item;
  }), ...Object.entries(CLASS_COLOURS).map(([cls, colour]) => {
    const item = el('span', { class: 'class' });
    item.append(swatch(colour, 'stripe'), cls.toLowerCase().replace('_', ' '));
    return item;
  }), ...[['serving', 'orange outline: a GPU an inference service holds'], ['fill', 'dashed, orange foot: on a GPU inference lent'],
    ['mig', 'part of a row: a MIG instance'], ['share', 'a time-slicing share'],
    ['cut', 'red end: preempted or taken back by inference'],
    ['band', 'strip atop a waiting job: starts by its left end with odds 1 in 2 (P50), by its right end 9 in 10 (P90)'],
    ['planned-start', 'tick: its planned start in this plan']].map(([cls, text]) => {
    const item = el('span', { class: 'mark ' + cls });
    item.append(el('i', { class: cls }), text);
    return item;
  }));
}

function drawHistory(points) {
  const svg = document.getElementById('history');
  svg.replaceChildren();
  const width = widthFor(svg);
  const height = 180;
  svg.setAttribute('width', width);
  svg.setAttribute('height', height);
  if (points.length === 0) {
    svg.append(el('text', { x: 10, y: 20 }, 'no plans yet'));
    return;
  }
  const t0 = points[0].at;
  const t1 = Math.max(points[points.length - 1].at, t0 + 60);
  const top = Math.max(1, ...points.map(p => Math.max(p.totalGpus, p.inferenceDemandGpus)));
  const x = t => 40 + (t - t0) / (t1 - t0) * (width - 60);
  const y = v => height - 20 - v / top * (height - 40);
  svg.append(el('line', { x1: 40, x2: width - 20, y1: y(0), y2: y(0), class: 'axis' }));
  svg.append(el('text', { x: 4, y: y(top) + 4 }, String(top)));
  svg.append(el('text', { x: 4, y: y(0) + 4 }, '0'));
  svg.append(el('text', { x: 40, y: height - 4 }, when(t0, t1)));
  svg.append(el('text', { x: width - 60, y: height - 4 }, clock(t1)));
  const series = [
    ['totalGpus', '#8d99ae', 'GPUs in the cluster'],
    ['busyGpus', '#264653', 'GPUs busy (utilization)'],
    ['inferenceDemandGpus', '#e76f51', 'inference demand (GPUs)'],
    ['inferenceServedGpus', '#f4a261', 'inference served (GPUs)'],
    ['inferenceHeldGpus', '#9d0208', 'held by inference services'],
    ['inferenceReservedGpus', '#ffb703', 'reserved for inference by the plan'],
  ];
  for (const [key, colour] of series) {
    const line = points.map(p => x(p.at) + ',' + y(p[key])).join(' ');
    svg.append(el('polyline', { points: line, fill: 'none', stroke: colour, 'stroke-width': 2, class: 'series ' + key }));
    // dots too, so that a single plan (a line of one point) still shows
    for (const p of points) svg.append(el('circle', { cx: x(p.at), cy: y(p[key]), r: 2.5, fill: colour }));
  }
  // the legend in the page above the chart, where it wraps instead of running off the chart's edge
  document.getElementById('history-legend').replaceChildren(...series.map(([key, colour, label]) => {
    const item = el('span', { class: 'series ' + key });
    item.append(swatch(colour), label);
    return item;
  }));
}

// The day a comparison covers (./horizon demo: the day it replays): how far the clock has come through it, that it is
// over, and whether the comparison's figures are still being computed.
function showDay(comparisons, now) {
  const c = comparisons.find(x => x.window);
  const notice = document.getElementById('notice');
  document.getElementById('day').hidden = !c;
  if (!c) {
    notice.hidden = true;
    return;
  }
  const [from, to] = [epochSeconds(c.window.from), epochSeconds(c.window.to)];
  const done = Math.min(1, Math.max(0, (now - from) / (to - from)));
  const over = now >= to;
  document.getElementById('day-progress').value = done;
  document.getElementById('day-words').textContent = over ? 'the day is over' : Math.floor(done * 100) + '% of the day replayed';
  notice.className = over ? 'over' : '';
  notice.textContent = over
    ? 'The day is over: ' + new Date(from * 1000).toLocaleDateString([], { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' })
      + (to - from < 86_400 ? ', ' + clock(from) + ' to ' + clock(to) : '') + ' has been replayed. ' + (c.computing
      ? 'The same day under other schedulers is still being computed in the simulator; it appears below when done.'
      : 'Below: the same day under other schedulers, in the simulator.')
    : c.computing ? 'The same day under other schedulers is being computed in the simulator while the day runs.' : '';
  notice.hidden = notice.textContent === '';
}

function fillTable(id, rows, none, columns) {
  const trs = rows.map(r => {
    const tr = el('tr', { class: id + '-row' });
    for (const c of columns) tr.append(el('td', {}, String(c(r) ?? '')));
    return tr;
  });
  if (trs.length === 0) {
    const tr = el('tr');
    tr.append(el('td', { colspan: columns.length }, none));
    trs.push(tr);
  }
  document.querySelector('#' + id + ' tbody').replaceChildren(...trs);
}

const hours = v => v === undefined || v === null ? '' : v.toFixed(1);
const share = v => v === undefined || v === null ? '' : Math.round(v * 100) + '%';

function fillTeams(teams) {
  fillTable('teams', teams, 'none yet', [t => t.name, t => t.parent || '', t => share(t.share), t => hours(t.owedGpuHours), t => hours(t.deliveredGpuHours),
    t => t.owedGpuHoursDelivered === undefined ? 'owed nothing' : share(t.owedGpuHoursDelivered)]);
}

function fillComparisons(comparisons) {
  const c = comparisons[0];
  document.getElementById('comparison-about').textContent = c ? c.scenario + ' (' + c.command + ')' : 'no comparison stored';
  const rows = c ? c.policies.map(p => Object.assign({ best: p.policy === c.bestBaseline }, p)) : [];
  const none = c && c.computing ? 'being computed in the simulator (FIFO, KAI, Kueue, Slurm and Horizon on the same day) while the day runs' : 'none yet';
  fillTable('comparison', rows, none, [p => p.policy + (p.best ? ' (best baseline)' : ''), p => p.engine, p => share(p.utilization),
    p => p.jobsCompleted + ' of ' + p.jobsArrived, p => p.preemptions, p => p.waitP95Seconds == null ? '' : duration(p.waitP95Seconds),
    p => share(p.worstTeamOwedDelivered), p => share(p.rtSloAttainment), p => hours(p.priorityWeightedOutput)]);
}

// The pending list a page at a time, in queue order; the page stays put as the plan refreshes.
const PENDING_PAGE = 25;
let pendingPage = 0;
let lastPlan = null;

function fillPending(plan) {
  lastPlan = plan;
  const pages = Math.max(1, Math.ceil(plan.pending.length / PENDING_PAGE));
  pendingPage = Math.min(pendingPage, pages - 1);
  const first = pendingPage * PENDING_PAGE;
  document.getElementById('pending-pages').hidden = pages === 1;
  document.getElementById('pending-page').textContent = 'jobs ' + (first + 1) + ' to ' + Math.min(first + PENDING_PAGE, plan.pending.length)
    + ' of ' + plan.pending.length + ' waiting';
  document.getElementById('pending-prev').disabled = pendingPage === 0;
  document.getElementById('pending-next').disabled = pendingPage === pages - 1;
  const rows = plan.pending.slice(first, first + PENDING_PAGE).map(job => {
    const tr = el('tr', { class: 'pending-job', 'data-job': job.jobId });
    const cells = [job.queuePosition ?? '', jobLabel(job), job.team, job['class'], gpusAsked(job), plannedCell(job, plan.plannedAt),
      bandCell(job, plan.plannedAt), inWords(job.reason || '', plan.plannedAt)];
    const note = job.startBandNote ? inWords(job.startBandNote, plan.plannedAt) : null;
    const words = [hasBand(job) ? bandWords(job, plan.plannedAt) : null, note].filter(Boolean).join('; ');
    cells.forEach((c, i) => {
      const td = el('td', i === 6 && words ? { class: 'band', title: words } : {}, String(c));
      tr.append(td);
    });
    return tr;
  });
  if (rows.length === 0) {
    const tr = el('tr');
    tr.append(el('td', { colspan: 8 }, 'nothing waits'));
    rows.push(tr);
  }
  document.querySelector('#pending tbody').replaceChildren(...rows);
}

// nodes an approval-requiring enrollment token enrolled: the planner places nothing on them (they are not in the plan's
// rows) until an admin approves them; and nodes an admin drained, which take no new work until undrained
function markWaitingNodes(nodes) {
  const waiting = nodes.filter(n => n.pendingApproval).map(n => n.name);
  const drained = nodes.filter(n => n.drainReason).map(n => n.name + ' (' + n.drainReason + ')');
  const said = [];
  if (waiting.length) said.push(waiting.length + (waiting.length === 1 ? ' node waits' : ' nodes wait') + ' for approval, no work placed: '
    + waiting.join(', ') + ' (./horizon node approve NAME)');
  if (drained.length) said.push('drained, no new work: ' + drained.join(', ') + ' (./horizon node undrain NAME)');
  const mark = document.getElementById('waiting-nodes');
  mark.textContent = said.join('; ');
  // the header cuts a long list short at its line's end: the whole on hover
  mark.title = mark.textContent;
  mark.hidden = said.length === 0;
}

// The header's summary. Busy GPUs are those the plan's jobs hold (its busyGpus) and those inference services hold (as
// their agents last said): a GPU serving inference is busy. How many serve inference is said on hover, which keeps the
// header one line on a wide screen.
function showSummary(plan, services) {
  const serving = services.reduce((sum, service) => sum + service.heldGpus, 0);
  const busy = plan.busyGpus + serving;
  const summary = document.getElementById('summary');
  summary.textContent = busy + ' of ' + plan.totalGpus + ' GPUs busy (' + (plan.totalGpus === 0 ? 0 : Math.round(busy / plan.totalGpus * 100))
    + '%), ' + plan.running.length + ' running, ' + plan.pending.length + ' waiting; planned at ' + clock(plan.plannedAt);
  summary.title = serving ? serving + ' of the busy GPUs serve inference' : '';
}

async function refresh() {
  try {
    // the plan's waiting jobs carry their start bands (startP50At, startP90At; null: no band yet)
    const [plan, history, nodes, now] = await Promise.all([api('/api/v1/plan'), api('/api/v1/plan/history'), api('/api/v1/nodes'),
      api('/api/v1/clock')]);
    const since = new Date(Date.parse(plan.plannedAt || now.now) - PAST_SECONDS * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    const [runs, teams, comparisons, services] = await Promise.all([api('/api/v1/runs?since=' + since), api('/api/v1/teams'),
      api('/api/v1/comparisons'), api('/api/v1/inference-services')]);
    inSeconds(plan, history, runs);
    teamOrder = teams.map(t => t.name).sort();
    document.getElementById('clock').textContent = (now.virtual ? 'simulated time ' : 'time ')
      + new Date(now.now).toLocaleString([], { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });
    showSummary(plan, services);
    markWaitingNodes(nodes);
    // shown before drawing: the charts take their width from the laid-out page
    show('view');
    drawGantt(plan, nodes, runs, services);
    drawHistory(history);
    fillPending(plan);
    fillTeams(teams);
    fillComparisons(comparisons);
    showDay(comparisons, epochSeconds(now.now));
    document.getElementById('error').textContent = '';
  } catch (e) {
    if (e.unauthorized) {
      sessionStorage.removeItem(TOKEN_KEY);
      document.getElementById('login-error').textContent = e.message;
      show('login');
    } else {
      document.getElementById('error').textContent = e.message;
    }
  }
}

function show(id) {
  document.getElementById('view').hidden = id !== 'view';
  document.getElementById('login').hidden = id !== 'login';
  document.getElementById('forget').hidden = id !== 'view';
}

document.getElementById('login').addEventListener('submit', event => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, document.getElementById('token').value.trim());
  refresh();
});
for (const [id, step] of [['pending-prev', -1], ['pending-next', 1]]) {
  document.getElementById(id).addEventListener('click', () => {
    pendingPage = Math.max(0, pendingPage + step);
    if (lastPlan) fillPending(lastPlan);
  });
}
document.getElementById('forget').addEventListener('click', () => {
  sessionStorage.removeItem(TOKEN_KEY);
  show('login');
});

takeTokenFromUrl();
if (sessionStorage.getItem(TOKEN_KEY)) refresh();
else show('login');
setInterval(() => { if (sessionStorage.getItem(TOKEN_KEY)) refresh(); }, REFRESH_MS);
