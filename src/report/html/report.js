// strata HTML report: lays out and draws the data strata wrote into #strata-data (plain SVG, no
// libraries, nothing from the network). Every figure comes computed from strata's report layer;
// this script only formats, sorts, filters and draws. Embedded at build time (CMakeLists.txt).
(function () {
  'use strict';

  // A script error leaves a visible marker that the browser tests look for.
  function reportError(message) {
    if (document.getElementById('strata-error')) return;
    const div = document.createElement('div');
    div.id = 'strata-error';
    div.textContent = 'report script error: ' + message;
    document.body.insertBefore(div, document.body.firstChild);
  }
  window.onerror = function (message, source, line) {
    reportError(message + ' (line ' + line + ')');
  };

  const SVG_NS = 'http://www.w3.org/2000/svg';

  // ---- small helpers -------------------------------------------------------------------------

  function el(tag, attrs, children) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) {
      if (k === 'text') e.textContent = attrs[k];
      else if (k === 'html') e.innerHTML = attrs[k];
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), attrs[k]);
      else e.setAttribute(k, attrs[k]);
    }
    for (const c of children || []) if (c) e.appendChild(c);
    return e;
  }

  function svgEl(tag, attrs, text) {
    const e = document.createElementNS(SVG_NS, tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // Hover text: one attribute per element and one shared box (a <title> per element would double
  // the number of nodes the browser lays out).
  function tip(node, text) {
    node.setAttribute('data-tip', text);
    return node;
  }
  const tipBox = document.createElement('div');
  tipBox.id = 'tip';
  document.addEventListener('mouseover', function (e) {
    const t = e.target.closest ? e.target.closest('[data-tip]') : null;
    tipBox.style.display = t ? 'block' : 'none';
    if (t) tipBox.textContent = t.getAttribute('data-tip');
  });
  document.addEventListener('mousemove', function (e) {
    tipBox.style.left = Math.min(e.clientX + 14, window.innerWidth - 420) + 'px';
    tipBox.style.top = e.clientY + 16 + 'px';
  });

  function escapeHtml(s) {
    return String(s).replace(/[&<>"]/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c];
    });
  }

  function ms(x) {
    if (x === null || x === undefined || !isFinite(x)) return '-';
    const a = Math.abs(x);
    return x.toFixed(a >= 10 ? 2 : a >= 0.1 ? 3 : a >= 0.01 ? 4 : 6);
  }

  function bytes(x) {
    if (x === null || x === undefined || x < 0 || !isFinite(x)) return '-';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let u = 0;
    while (x >= 1024 && u < units.length - 1) { x /= 1024; u++; }
    return (u === 0 ? x.toFixed(0) : x.toFixed(1)) + ' ' + units[u];
  }

  function si(x) {
    if (x === null || x === undefined || !isFinite(x)) return '-';
    const units = ['', ' k', ' M', ' G', ' T', ' P'];
    let u = 0;
    while (Math.abs(x) >= 1000 && u < units.length - 1) { x /= 1000; u++; }
    return (u === 0 ? String(Math.round(x * 100) / 100) : x.toPrecision(3)) + units[u];
  }

  function signedPct(ratio) {
    if (ratio === null || ratio === undefined || !isFinite(ratio)) return '-';
    const p = (ratio - 1) * 100;
    return (p >= 0 ? '+' : '') + p.toFixed(1) + '%';
  }

  // A stable color per op type.
  const typeColors = {};
  function colorOf(type) {
    if (!typeColors[type]) {
      let h = 0;
      for (let i = 0; i < type.length; i++) h = (h * 31 + type.charCodeAt(i)) >>> 0;
      typeColors[type] = 'hsl(' + (h % 360) + ',55%,' + (52 + (h >> 9) % 14) + '%)';
    }
    return typeColors[type];
  }

  // Sorting a column of the text view's cells: numbers with their units, else text.
  const MULTIPLIERS = { '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, B: 1, KiB: 1024,
    MiB: 1048576, GiB: 1073741824, TiB: 1099511627776, '%': 1 };
  function sortKey(cell) {
    const m = /^\s*([+-]?\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*(k|M|G|T|P|B|KiB|MiB|GiB|TiB|%)?\s*$/.exec(cell);
    return m ? parseFloat(m[1]) * MULTIPLIERS[m[2] || ''] : NaN;
  }

  function section(id, title, note) {
    const s = el('section', { id: id }, [el('h2', { text: title })]);
    if (note) s.appendChild(el('p', { class: 'note', text: note }));
    return s;
  }

  function chart(width, height) {
    return svgEl('svg', { class: 'chart', width: width, height: height,
      viewBox: '0 0 ' + width + ' ' + height });
  }

  function linear(d0, d1, r0, r1) {
    const span = d1 - d0 || 1;
    return function (v) { return r0 + (v - d0) / span * (r1 - r0); };
  }

  function logScale(d0, d1, r0, r1) {
    const l0 = Math.log10(d0), l1 = Math.log10(d1);
    return function (v) { return r0 + (Math.log10(v) - l0) / ((l1 - l0) || 1) * (r1 - r0); };
  }

  function niceTicks(lo, hi, count) {
    const step0 = (hi - lo) / Math.max(count, 1);
    const mag = Math.pow(10, Math.floor(Math.log10(step0 || 1)));
    const step = [1, 2, 5, 10].map(function (m) { return m * mag; })
      .find(function (s) { return s >= step0; }) || mag * 10;
    const ticks = [];
    for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push(t);
    return ticks;
  }

  function xAxis(svg, scale, ticks, y, label, format) {
    const g = svgEl('g', { class: 'axis' });
    g.appendChild(svgEl('line', { x1: scale(ticks[0]), x2: scale(ticks[ticks.length - 1]), y1: y, y2: y }));
    for (const t of ticks) {
      g.appendChild(svgEl('line', { x1: scale(t), x2: scale(t), y1: y, y2: y + 4 }));
      g.appendChild(svgEl('text', { x: scale(t), y: y + 15, 'text-anchor': 'middle' }, format(t)));
    }
    if (label) g.appendChild(svgEl('text', { x: scale(ticks[ticks.length - 1]), y: y + 30,
      'text-anchor': 'end', class: 'muted' }, label));
    svg.appendChild(g);
  }

  function yAxis(svg, scale, ticks, x, width, label, format) {
    const g = svgEl('g', { class: 'axis' });
    for (const t of ticks) {
      g.appendChild(svgEl('line', { x1: x, x2: x + width, y1: scale(t), y2: scale(t), class: 'grid' }));
      g.appendChild(svgEl('text', { x: x - 6, y: scale(t) + 4, 'text-anchor': 'end' }, format(t)));
    }
    if (label) g.appendChild(svgEl('text', { x: x, y: scale(ticks[ticks.length - 1]) - 8,
      class: 'muted' }, label));
    svg.appendChild(g);
  }

  // ---- tables --------------------------------------------------------------------------------

  // The text view's table, sortable by any column and filtered by a search over every cell.
  function dataTable(t, options) {
    options = options || {};
    const wrap = el('div');
    const rows = t.rows.map(function (cells, i) { return { cells: cells, index: i }; });
    const keys = [];  // per column, computed on its first sort
    let shown = rows, sortColumn = -1, ascending = false;
    const count = el('span', { class: 'note' });
    const input = el('input', { type: 'search', placeholder: 'filter: name, type, kernel… (regex)' });
    const tbody = el('tbody');
    const head = el('tr', {}, t.columns.map(function (name, c) {
      return el('th', { class: t.left[c] ? 'left' : '', text: name, 'data-column': c,
        onclick: function () { sortBy(c); } });
    }));
    const table = el('table', { class: 'data' }, [el('thead', {}, [head]), tbody]);

    // Rows are added as the table scrolls: laying out thousands of rows up front would cost the
    // browser most of the page's render time.
    const batch = 150;
    let drawn = 0;
    function rowsHtml(from, to) {
      const html = [];
      for (const r of shown.slice(from, to)) {
        html.push('<tr>');
        for (let c = 0; c < t.columns.length; c++)
          html.push('<td' + (t.left[c] ? ' class="left"' : '') + '>' +
            escapeHtml(r.cells[c] === undefined ? '' : r.cells[c]) + '</td>');
        html.push('</tr>');
      }
      return html.join('');
    }
    function draw() {
      drawn = Math.min(batch, shown.length);
      tbody.innerHTML = rowsHtml(0, drawn);
      count.textContent = shown.length + ' of ' + rows.length + ' rows';
    }
    function more() {
      if (drawn >= shown.length || scroller.scrollTop + scroller.clientHeight < scroller.scrollHeight - 300)
        return;
      tbody.insertAdjacentHTML('beforeend', rowsHtml(drawn, drawn + 2 * batch));
      drawn = Math.min(drawn + 2 * batch, shown.length);
    }
    function sortBy(c) {
      ascending = sortColumn === c ? !ascending : t.left[c];
      sortColumn = c;
      if (!keys[c]) keys[c] = rows.map(function (r) { return sortKey(r.cells[c] || ''); });
      const k = keys[c];
      const sign = ascending ? 1 : -1;
      shown = shown.slice().sort(function (a, b) {
        const x = k[a.index], y = k[b.index];
        const xn = isNaN(x), yn = isNaN(y);
        if (!xn && !yn) return (x - y) * sign || a.index - b.index;
        if (xn !== yn) return xn ? 1 : -1;  // '-' (unknown) last either way
        return String(a.cells[c]).localeCompare(String(b.cells[c])) * sign || a.index - b.index;
      });
      for (const th of head.children) {
        th.classList.toggle('sorted', +th.dataset.column === c);
        th.classList.toggle('asc', +th.dataset.column === c && ascending);
      }
      draw();
    }
    function filter() {
      let re = null;
      try { re = new RegExp(input.value, 'i'); } catch (e) { re = null; }
      const text = input.value.toLowerCase();
      shown = rows.filter(function (r) {
        return r.cells.some(function (cell) {
          return re ? re.test(cell) : String(cell).toLowerCase().includes(text);
        });
      });
      if (sortColumn >= 0) { ascending = !ascending; sortBy(sortColumn); } else draw();
    }
    input.addEventListener('input', filter);
    if (options.filter !== false) wrap.appendChild(el('div', { class: 'controls' }, [input, count]));
    if (t.title) wrap.appendChild(el('p', { class: 'note', text: t.title }));
    const scroller = el('div', { class: 'tablewrap', onscroll: more }, [table]);
    wrap.appendChild(scroller);
    draw();
    return wrap;
  }

  // ---- charts --------------------------------------------------------------------------------

  // Horizontal bars, largest first: label, bar, value.
  function barChart(bars, format, limit) {
    bars = bars.slice(0, limit || 30);
    const width = 640, row = 20, left = 130, right = 150;
    const svg = chart(width, bars.length * row + 10);
    const max = Math.max.apply(null, bars.map(function (b) { return b.value; }).concat([1e-12]));
    const x = linear(0, max, 0, width - left - right);
    bars.forEach(function (b, i) {
      const y = 5 + i * row;
      svg.appendChild(svgEl('text', { x: left - 6, y: y + 13, 'text-anchor': 'end' }, b.label));
      svg.appendChild(tip(svgEl('rect', { x: left, y: y + 2, width: Math.max(1, x(b.value)),
        height: row - 5, fill: colorOf(b.label), class: 'bar' }),
        b.label + ': ' + format(b.value) + ' (' + b.nodes + ' nodes)'));
      svg.appendChild(svgEl('text', { x: left + x(b.value) + 6, y: y + 13 },
        format(b.value) + '  ' + b.share.toFixed(1) + '%'));
    });
    return svg;
  }

  // Latency histogram with the median, percentiles and the outlier threshold marked.
  function latencyHistogram(lat) {
    const h = lat.histogram;
    const width = 640, height = 260, left = 46, right = 20, top = 52, bottom = 40;
    const svg = chart(width, height);
    if (!h) { svg.appendChild(svgEl('text', { x: 10, y: 20 }, 'no iterations')); return svg; }
    const n = h.counts.length;
    const lo = h.start, hi = h.start + h.width * n;
    const xmax = Math.max(hi, lat.outlier_above * 1.02);
    const x = linear(lo, lo === xmax ? lo + 1 : xmax, left, width - right);
    const maxCount = Math.max.apply(null, h.counts);
    const y = linear(0, maxCount, height - bottom, top);
    yAxis(svg, y, niceTicks(0, maxCount, 4).filter(Number.isInteger), left, width - left - right,
      'iterations', String);
    h.counts.forEach(function (c, i) {
      const x0 = x(lo + i * h.width), x1 = x(lo + (i + 1) * h.width);
      svg.appendChild(tip(svgEl('rect', { x: x0 + 0.5, y: y(c), width: Math.max(1, x1 - x0 - 1),
        height: y(0) - y(c), fill: '#8fb3ee', class: 'bar' }),
        c + ' iterations in [' + ms(lo + i * h.width) + ', ' + ms(lo + (i + 1) * h.width) + ') ms'));
    });
    const s = lat.summary;
    const marks = [['median', s.median, '#1d2330'], ['p90', s.p90, '#b9770e'],
      ['p99', s.p99, '#c0392b'], ['outliers >', lat.outlier_above, '#c0392b']];
    marks.forEach(function (m, i) {
      if (!(m[1] >= lo && m[1] <= xmax)) return;
      svg.appendChild(svgEl('line', { x1: x(m[1]), x2: x(m[1]), y1: 4 + i * 11, y2: height - bottom,
        stroke: m[2], 'stroke-dasharray': i === 3 ? '4 3' : '', 'stroke-width': 1.5 }));
      // Labels on four levels: close marks (median, p90) must not overwrite each other.
      svg.appendChild(svgEl('text', { x: x(m[1]) + 3, y: 12 + i * 11, fill: m[2] },
        m[0] + ' ' + ms(m[1])));
    });
    for (const i of lat.outliers)
      svg.appendChild(tip(svgEl('circle', { cx: x(lat.samples[i]), cy: height - bottom - 6, r: 4,
        fill: '#c0392b', class: 'outlier' }), 'iteration ' + (i + 1) + ': ' + ms(lat.samples[i]) + ' ms'));
    xAxis(svg, x, niceTicks(lo, xmax, 6), height - bottom, 'ms per iteration', ms);
    return svg;
  }

  // Parts and whole: node medians + outside operators = whole-run median.
  function partsBar(lat) {
    const width = 640, height = 54, left = 10;
    const svg = chart(width, height);
    const whole = Math.max(lat.summary.median, lat.sum_node_medians, 1e-12);
    const x = linear(0, whole, 0, width - 2 * left);
    const nodes = Math.min(lat.sum_node_medians, whole);
    svg.appendChild(tip(svgEl('rect', { x: left, y: 6, width: x(nodes), height: 22, fill: '#8fb3ee' }),
      'sum of node medians ' + ms(lat.sum_node_medians) + ' ms'));
    if (lat.outside_operators > 0)
      svg.appendChild(tip(svgEl('rect', { x: left + x(nodes), y: 6, width: x(lat.outside_operators),
        height: 22, fill: '#e3a857' }), 'outside operators ' + ms(lat.outside_operators) + ' ms'));
    svg.appendChild(svgEl('text', { x: left, y: 44 }, 'nodes ' + ms(lat.sum_node_medians) +
      ' ms + outside operators ' + ms(lat.outside_operators) + ' ms = whole-run median ' +
      ms(lat.summary.median) + ' ms'));
    return svg;
  }

  // The scope tree as an icicle: a row per depth, widths by value; click a scope to zoom into it.
  function icicle(rows, format, what) {
    const wrap = el('div');
    const crumbs = el('div', { class: 'crumbs' });
    const width = 1100, row = 22;
    const children = rows.map(function () { return []; });
    const roots = [];
    rows.forEach(function (r, i) { (r.parent >= 0 ? children[r.parent] : roots).push(i); });
    let holder = null;

    function draw(focus) {
      const top = focus >= 0 ? [focus] : roots;
      const total = top.reduce(function (s, i) { return s + Math.max(rows[i].value, 0); }, 0) || 1;
      const base = focus >= 0 ? rows[focus].depth : 0;
      let maxDepth = 0;
      const boxes = [];
      (function place(list, x0, span) {
        const sum = list.reduce(function (s, i) { return s + Math.max(rows[i].value, 0); }, 0);
        let x = x0;
        for (const i of list) {
          const w = sum > 0 ? span * Math.max(rows[i].value, 0) / sum : 0;
          if (w >= 0.5) {
            boxes.push([i, x, w]);
            maxDepth = Math.max(maxDepth, rows[i].depth - base);
            place(children[i], x, w);
          }
          x += w;
        }
      })(top, 0, width * (top.reduce(function (s, i) { return s + Math.max(rows[i].value, 0); }, 0) / total));
      const svg = chart(width, (maxDepth + 1) * row + 2);
      for (const b of boxes) {
        const r = rows[b[0]];
        const g = svgEl('g', { class: 'scope', cursor: children[b[0]].length ? 'pointer' : 'default' });
        g.appendChild(svgEl('rect', { x: b[1], y: (r.depth - base) * row, width: Math.max(b[2] - 1, 0.5),
          height: row - 2, fill: r.type ? colorOf(r.type) : '#c9d6ea' }));
        if (b[2] > 44)
          g.appendChild(svgEl('text', { x: b[1] + 4, y: (r.depth - base) * row + 14 },
            r.name.length * 6.5 > b[2] - 8 ? r.name.slice(0, Math.max(1, Math.floor((b[2] - 8) / 6.5))) : r.name));
        tip(g, r.path + (r.type ? ' (' + r.type + ')' : '') + ': ' + format(r.value) + ', ' +
          r.nodes + ' nodes');
        if (children[b[0]].length) g.addEventListener('click', function () { draw(b[0]); });
        svg.appendChild(g);
      }
      crumbs.innerHTML = '';
      crumbs.appendChild(el('a', { text: 'whole model', onclick: function () { draw(-1); } }));
      const path = [];
      for (let i = focus; i >= 0; i = rows[i].parent) path.unshift(i);
      for (const i of path) {
        crumbs.appendChild(document.createTextNode(' / '));
        crumbs.appendChild(el('a', { text: rows[i].name, onclick: function () { draw(i); } }));
      }
      crumbs.appendChild(document.createTextNode('  — ' + format(focus >= 0 ? rows[focus].value : total) +
        ' ' + what));
      if (holder) wrap.replaceChild(svg, holder); else wrap.appendChild(svg);
      holder = svg;
    }
    wrap.appendChild(crumbs);
    draw(-1);
    return wrap;
  }

  // One iteration: a lane per thread, a bar per node at its start.
  function timelineChart(tl) {
    const threads = Array.from(new Set(tl.events.map(function (e) { return e.thread; }))).sort();
    const width = 1100, left = 70, lane = 34, top = 8;
    const height = top + threads.length * lane + 40;
    const svg = chart(width, height);
    const end = Math.max(tl.duration, tl.events.reduce(function (m, e) {
      return Math.max(m, e.start + e.duration); }, 0));
    const x = linear(0, end || 1, left, width - 12);
    threads.forEach(function (t, i) {
      svg.appendChild(svgEl('text', { x: left - 8, y: top + i * lane + 20, 'text-anchor': 'end' },
        'thread ' + t));
    });
    for (const e of tl.events) {
      const i = threads.indexOf(e.thread);
      svg.appendChild(tip(svgEl('rect', { x: x(e.start), y: top + i * lane + 4,
        width: Math.max(x(e.start + e.duration) - x(e.start), 0.6), height: lane - 8,
        fill: colorOf(e.type), class: 'event' }),
        e.name + ' (' + e.type + '): ' + ms(e.duration) + ' ms at ' + ms(e.start) + ' ms'));
    }
    xAxis(svg, x, niceTicks(0, end || 1, 8), top + threads.length * lane + 2, 'ms from the iteration start', ms);
    return svg;
  }

  // Roofline: arithmetic intensity against achieved GFLOP/s, under the machine's roofs.
  function rooflineChart(r) {
    const width = 640, height = 380, left = 60, right = 20, top = 20, bottom = 44;
    const svg = chart(width, height);
    const pts = r.points;
    const known = r.peak_gflops > 0 && r.peak_gbps > 0;
    const ridge = known ? r.peak_gflops / r.peak_gbps : 1;
    const xs = pts.map(function (p) { return p.intensity; }).concat(known ? [ridge] : []);
    const ys = pts.map(function (p) { return p.gflops; }).concat(known ? [r.peak_gflops] : []);
    if (xs.length === 0) { svg.appendChild(svgEl('text', { x: 10, y: 20 }, 'no node with a cost rule and a measurable time')); return svg; }
    const xlo = Math.pow(10, Math.floor(Math.log10(Math.min.apply(null, xs)))),
      xhi = Math.pow(10, Math.ceil(Math.log10(Math.max.apply(null, xs)) + 1e-9));
    const ylo = Math.pow(10, Math.floor(Math.log10(Math.min.apply(null, ys)))),
      yhi = Math.pow(10, Math.ceil(Math.log10(Math.max.apply(null, ys) * 1.5)));
    const x = logScale(xlo, xhi, left, width - right), y = logScale(ylo, yhi, height - bottom, top);
    const decades = function (lo, hi) { const t = []; for (let v = lo; v <= hi * 1.0001; v *= 10) t.push(v); return t; };
    yAxis(svg, y, decades(ylo, yhi), left, width - left - right, 'GFLOP/s (achieved)', si);
    xAxis(svg, x, decades(xlo, xhi), height - bottom, 'arithmetic intensity (FLOPs per byte)', si);
    if (known) {
      const x0 = Math.max(xlo, ylo / r.peak_gbps);
      svg.appendChild(svgEl('path', { d: 'M' + x(x0) + ',' + y(r.peak_gbps * x0) + ' L' + x(ridge) + ',' +
        y(r.peak_gflops) + ' L' + x(xhi) + ',' + y(r.peak_gflops), fill: 'none', stroke: '#1d2330',
        'stroke-width': 2, class: 'roof' }));
      svg.appendChild(svgEl('text', { x: x(xhi) - 4, y: y(r.peak_gflops) - 6, 'text-anchor': 'end' },
        'compute roof ' + r.peak_gflops.toFixed(1) + ' GFLOP/s' + (r.isa ? ' (' + r.isa + ')' : '')));
      svg.appendChild(svgEl('text', { x: x(x0) + 4, y: y(r.peak_gbps * x0) - 6 },
        'bandwidth roof ' + r.peak_gbps.toFixed(1) + ' GB/s'));
    } else {
      svg.appendChild(svgEl('text', { x: left + 8, y: top + 12, class: 'muted' },
        'machine peaks unknown (profiled with --no-roofline): no roofs'));
    }
    for (const p of pts)
      svg.appendChild(tip(svgEl('circle', { cx: x(p.intensity), cy: y(p.gflops), r: 3.5,
        fill: colorOf(p.type), 'fill-opacity': 0.8, stroke: '#333', 'stroke-width': 0.4, class: 'point' }),
        p.name + ' (' + p.type + '): ' + p.gflops.toFixed(2) + ' GFLOP/s at ' +
        p.intensity.toFixed(2) + ' FLOP/B, ' + p.bound + '-bound, median ' + ms(p.median_ms) + ' ms' +
        (p.effective ? ' (effective FLOPs: Winograd)' : '')));
    return svg;
  }

  // Bytes live per step (node in execution order), the peak marked, with reference lines.
  function memoryChart(mem, lines) {
    const width = 1100, height = 260, left = 70, right = 20, top = 24, bottom = 40;
    const svg = chart(width, height);
    const live = mem.live;
    const values = live.filter(function (v) { return v !== null; });
    const refs = lines.filter(function (l) { return l[1] > 0; });
    const max = Math.max.apply(null, values.concat(refs.map(function (l) { return l[1]; })).concat([1]));
    const x = linear(0, Math.max(live.length, 1), left, width - right);
    const y = linear(0, max * 1.08, height - bottom, top);
    yAxis(svg, y, niceTicks(0, max * 1.08, 5), left, width - left - right, 'bytes', bytes);
    let d = '';
    live.forEach(function (v, i) {
      if (v === null) return;
      d += (d ? 'L' : 'M') + x(i) + ',' + y(v) + 'L' + x(i + 1) + ',' + y(v);
    });
    svg.appendChild(svgEl('path', { d: d, fill: 'none', stroke: '#2f6fdf', 'stroke-width': 1.5,
      class: 'live' }));
    refs.forEach(function (l, i) {
      svg.appendChild(svgEl('line', { x1: left, x2: width - right, y1: y(l[1]), y2: y(l[1]),
        stroke: l[2], 'stroke-dasharray': '5 4' }));
      // Labels apart along the line: two lines at about the same height must stay readable.
      svg.appendChild(svgEl('text', { x: width - right - 4 - i * 260, y: y(l[1]) - 4 - i * 12,
        'text-anchor': 'end', fill: l[2] }, l[0] + ' ' + bytes(l[1])));
    });
    if (mem.peak > 0) {
      const px = x(mem.peak_step + 0.5), py = y(mem.peak);
      svg.appendChild(tip(svgEl('circle', { cx: px, cy: py, r: 5, fill: '#c0392b', class: 'peak' }),
        'peak at step ' + (mem.peak_step + 1) + ' (' + mem.names[mem.peak_step] + '): ' + bytes(mem.peak)));
      svg.appendChild(svgEl('text', { x: Math.min(Math.max(px + 8, left + 90), width - 520), y: py - 8, fill: '#c0392b' },
        (mem.peak_label || 'peak') + ' ' + bytes(mem.peak) + ' at ' + mem.names[mem.peak_step]));
    }
    xAxis(svg, x, niceTicks(0, live.length, 8), height - bottom, 'step (node in execution order)', String);
    return svg;
  }

  // Per-node change with its confidence interval, as a forest plot.
  function forestPlot(rows, minChange) {
    const width = 1050, row = 18, left = 300, right = 210, top = 26;
    const svg = chart(width, top + rows.length * row + 36);
    const vals = [];
    for (const r of rows) for (const v of [r.low, r.high, r.ratio]) if (v !== null) vals.push((v - 1) * 100);
    const lim = Math.min(Math.max(5, Math.max.apply(null, vals.map(Math.abs).concat([0])) * 1.1), 300);
    const x = linear(-lim, lim, left, width - right);
    const bottomY = top + rows.length * row;
    svg.appendChild(svgEl('rect', { x: x(-minChange * 100), y: top - 4, width: x(minChange * 100) - x(-minChange * 100),
      height: rows.length * row + 4, fill: '#eef1f5' }));
    svg.appendChild(svgEl('line', { x1: x(0), x2: x(0), y1: top - 4, y2: bottomY, stroke: '#98a0ad' }));
    svg.appendChild(svgEl('text', { x: left, y: 12, class: 'muted' },
      'change of the median (B vs A) with its confidence interval; shaded: within ±' +
      (minChange * 100).toFixed(0) + '% (no significant change)'));
    rows.forEach(function (r, i) {
      const yy = top + i * row + row / 2;
      const color = r.verdict === 'faster' ? '#1e8449' : r.verdict === 'slower' ? '#c0392b' : '#5b6474';
      const clamp = function (v) { return Math.max(-lim, Math.min(lim, (v - 1) * 100)); };
      svg.appendChild(svgEl('text', { x: left - 8, y: yy + 4, 'text-anchor': 'end' },
        r.name.length > 44 ? '…' + r.name.slice(-43) : r.name));
      const g = svgEl('g', { class: 'ci' });
      if (r.low !== null && r.high !== null && r.in_a && r.in_b)
        g.appendChild(svgEl('line', { x1: x(clamp(r.low)), x2: x(clamp(r.high)), y1: yy, y2: yy,
          stroke: color, 'stroke-width': 2 }));
      if (r.ratio !== null && r.in_a && r.in_b)
        g.appendChild(svgEl('circle', { cx: x(clamp(r.ratio)), cy: yy, r: 3.5, fill: color }));
      tip(g, r.name + ': ' + ms(r.median_a) + ' → ' + ms(r.median_b) + ' ms, ' + signedPct(r.ratio) +
        ' [' + signedPct(r.low) + ', ' + signedPct(r.high) + '], ' + r.verdict);
      svg.appendChild(g);
      svg.appendChild(svgEl('text', { x: width - right + 8, y: yy + 4, fill: color },
        !r.in_b ? 'only in A' : !r.in_a ? 'only in B' : signedPct(r.ratio) + ' ' + r.verdict));
    });
    xAxis(svg, x, niceTicks(-lim, lim, 8), bottomY + 4, 'change %', function (v) {
      return (v > 0 ? '+' : '') + Math.round(v) + '%'; });
    return svg;
  }

  // ---- pages ---------------------------------------------------------------------------------

  function page(title, sub, sections) {
    const nav = el('nav', {}, sections.map(function (s) {
      return el('a', { href: '#' + s.id, text: s.querySelector('h2').textContent });
    }));
    const app = document.getElementById('app');
    document.body.appendChild(tipBox);
    app.appendChild(el('header', {}, [el('h1', { text: title }), el('div', { class: 'sub', text: sub })]));
    app.appendChild(nav);
    app.appendChild(el('main', {}, sections));
  }

  function summaryBlock(lines) {
    const grid = el('div', { class: 'summary' });
    for (const l of lines) {
      const warn = l[0] === 'warning';
      grid.appendChild(el('div', { class: 'label', text: l[0] }));
      grid.appendChild(el('div', { class: warn ? 'warning' : '', text: l[1] }));
    }
    return grid;
  }

  function profilePage(d) {
    const lat = d.latency;
    const s1 = section('summary', 'Summary');
    s1.appendChild(summaryBlock(d.summary));
    const charts = el('div', { class: 'grid2' });
    const hist = el('div', {}, [el('p', { class: 'note', text: 'Latency of the ' + lat.samples.length +
      ' profiled iterations: median, p90, p99 and the outlier threshold (' + ms(lat.outlier_above) +
      ' ms) marked; red dots are outlier iterations (' + lat.outliers.length + ').' +
      (lat.unprofiled.count ? ' Unprofiled median ' + ms(lat.unprofiled.median) + ' ms: profiling overhead ' +
        (lat.overhead_pct >= 0 ? '+' : '') + lat.overhead_pct.toFixed(1) + '%.' : '') }), latencyHistogram(lat)]);
    const parts = el('div', {}, [el('p', { class: 'note', text: 'Parts and whole: the sum of the node medians ' +
      'beside the whole-run median; the rest is time outside operators.' }), partsBar(lat)]);
    charts.appendChild(hist);
    charts.appendChild(parts);
    s1.appendChild(charts);

    const s2 = section('nodes', 'Nodes', 'Every column of the text view (strata report --top 0). Click a header to sort; type to filter.');
    s2.appendChild(dataTable(d.nodes));
    const s3 = section('types', 'Time by op type');
    s3.appendChild(barChart(d.type_bars, function (v) { return ms(v) + ' ms'; }, 40));
    s3.appendChild(dataTable(d.types, { filter: false }));
    const s4 = section('scopes', 'Scope tree', 'Node names as module paths; width is total time. Click a scope to zoom in.');
    s4.appendChild(icicle(d.scopes, function (v) { return ms(v) + ' ms'; }, 'total'));
    const s5 = section('timeline', 'Timeline of one iteration');
    if (d.timeline) {
      s5.appendChild(el('p', { class: 'note', text: 'Iteration ' + d.timeline.iteration + ' (' +
        ms(d.timeline.duration) + ' ms, the one nearest the median). Hover a bar for the node.' }));
      s5.appendChild(timelineChart(d.timeline));
    } else s5.appendChild(el('p', { class: 'note', text: 'no iteration recorded' }));
    const s6 = section('roofline', 'Roofline', 'One point per node with a cost rule: FLOPs per byte moved against achieved GFLOP/s at its median time, under the machine\'s measured compute and bandwidth roofs.');
    s6.appendChild(rooflineChart(d.roofline));
    const m = d.memory;
    const s7 = section('memory', 'Memory across the run');
    if (m.peak > 0) {
      s7.appendChild(el('p', { class: 'note', text: 'Bytes of the activation arena\'s buffers live at each step (inputs, outputs, scratch and values still needed later), peak marked.' }));
      s7.appendChild(memoryChart(m, [['arena', m.arena_bytes, '#5b6474'],
        ['predicted largest live set', m.predicted_peak, '#b9770e']]));
    } else s7.appendChild(el('p', { class: 'note', text: 'This profile has no per-step arena figures (written by an older strata): arena ' + bytes(m.arena_bytes) + '.' }));
    const s8 = section('predicted', 'Predicted beside measured', d.predicted.rows.length + ' nodes joined with strata analyze\'s prediction; ' + d.predicted.mismatched + ' differ in output bytes.');
    s8.appendChild(dataTable(d.predicted));
    page('strata profile: ' + d.model, d.summary.length ? d.summary[1][1] : '', [s1, s2, s3, s4, s5, s6, s7, s8]);
  }

  function analysisPage(d) {
    const s1 = section('totals', 'Totals');
    s1.appendChild(el('pre', { class: 'block', text: d.totals.join('\n') }));
    if (d.formulas.length) {
      const s = d.symbols.map(function (x) { return x.name + (x.size !== null ? ' = ' + x.size : ''); }).join(', ');
      s1.appendChild(el('p', { class: 'note', text: 'Formulas in the symbolic dims (' + s + '):' }));
      s1.appendChild(dataTable({ title: '', columns: ['figure', 'formula'], left: [true, true],
        rows: d.formulas }, { filter: false }));
    }
    const s2 = section('types', 'Cost by op type');
    if (d.type_bars.length) s2.appendChild(barChart(d.type_bars, function (v) { return si(v) + ' FLOPs'; }, 40));
    s2.appendChild(dataTable(d.types, { filter: false }));
    const s3 = section('scopes', 'Cost by scope');
    if (d.scopes.length) s3.appendChild(icicle(d.scopes, function (v) { return si(v) + ' FLOPs'; }, 'in all'));
    s3.appendChild(dataTable(d.scopes_table));
    const s4 = section('memory', 'Memory over the graph');
    const m = d.memory;
    if (m.peak > 0) {
      s4.appendChild(el('p', { class: 'note', text: 'Activations live after each node (inputs included), in execution order, the largest marked; the peak during a node (its inputs and outputs live together) and the planner\'s arena as lines.' }));
      s4.appendChild(memoryChart(m, [['planner arena', m.arena_bytes || 0, '#5b6474'],
        ['peak activations (during a node)', m.peak_activations || 0, '#b9770e']]));
    } else s4.appendChild(el('p', { class: 'note', text: 'Sizes unknown (symbolic dims without --dim): see the formulas in the node table.' }));
    const s5 = section('nodes', 'Nodes');
    s5.appendChild(dataTable(d.nodes));
    const sections = [s1, s2, s3, s4, s5];
    if (d.warnings.length) {
      const s6 = section('warnings', 'Warnings');
      s6.appendChild(el('pre', { class: 'block', text: d.warnings.join('\n') }));
      sections.push(s6);
    }
    page('strata analyze: ' + d.about.model, 'strata ' + d.about.strata_version, sections);
  }

  function diffPage(d) {
    const pct = Math.round(d.confidence * 100) + '% CI';
    const s1 = section('whole', 'Whole run');
    const lines = [['A (base)', d.label_a + ': ' + d.about_a], ['B', d.label_b + ': ' + d.about_b]];
    for (const n of d.notes) lines.push(['note', n]);
    const w = d.whole;
    lines.push(['whole run', 'median ' + ms(w.median_a) + ' → ' + ms(w.median_b) + ' ms  ' + signedPct(w.ratio) +
      '  ' + pct + ' [' + signedPct(w.low) + ', ' + signedPct(w.high) + ']  ' + w.verdict]);
    s1.appendChild(summaryBlock(lines));
    const s2 = section('nodes', 'Per-node change', 'Nodes by the size of the change in median time (largest 60 drawn); the table lists all.');
    s2.appendChild(forestPlot(d.nodes.slice(0, 60), d.min_change));
    const row = function (r, name) {
      const both = r.in_a !== false && r.in_b !== false;
      const inA = r.in_a !== undefined ? r.in_a : r.nodes_a > 0;
      const inB = r.in_b !== undefined ? r.in_b : r.nodes_b > 0;
      return [name, r.type, inA ? ms(r.median_a) : '-', inB ? ms(r.median_b) : '-',
        (r.median_b - r.median_a >= 0 ? '+' : '') + ms(r.median_b - r.median_a),
        both ? signedPct(r.ratio) : '-', both && r.verdict !== 'too few samples' ?
          '[' + signedPct(r.low) + ', ' + signedPct(r.high) + ']' : '-',
        both ? r.verdict : r.in_a ? 'only in A' : 'only in B'];
    };
    s2.appendChild(dataTable({ title: '', columns: ['node', 'type', 'A ms', 'B ms', 'Δ ms', 'change', pct, 'verdict'],
      left: [true, true, false, false, false, false, false, true],
      rows: d.nodes.map(function (r) { return row(r, r.name); }) }));
    const s3 = section('types', 'Per op type');
    s3.appendChild(dataTable({ title: '', columns: ['type', 'nodes A', 'nodes B', 'A ms', 'B ms', 'Δ ms', 'change', pct, 'verdict'],
      left: [true, false, false, false, false, false, false, false, true],
      rows: d.types.map(function (r) {
        const cells = row(r, r.type);
        return [r.type, String(r.nodes_a), String(r.nodes_b)].concat(cells.slice(2));
      }) }, { filter: false }));
    page('strata diff', d.label_a + ' → ' + d.label_b, [s1, s2, s3]);
  }

  try {
    const data = JSON.parse(document.getElementById('strata-data').textContent);
    if (data.kind === 'profile') profilePage(data);
    else if (data.kind === 'analysis') analysisPage(data);
    else if (data.kind === 'diff') diffPage(data);
    else throw new Error('unknown report kind ' + data.kind);
    document.body.setAttribute('data-rendered', data.kind);
    // Time from navigation start to laid out (reading offsetHeight forces style and layout): what
    // bench/html_report_size.py reports as the render time.
    void document.body.offsetHeight;
    document.body.setAttribute('data-render-ms', performance.now().toFixed(1));
  } catch (e) {
    reportError(e && e.stack ? e.stack : String(e));
  }
})();
