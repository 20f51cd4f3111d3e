/* twping --html report: draws the charts with uPlot from the page's embedded data (no network access). After
 * each draw, every chart element gets data-drawn="yes" (a series with data was drawn) and data-ticks-x /
 * data-ticks-y (the tick labels drawn, joined by "|"); <body> gets data-charts and data-charts-drawn. */
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('twping-data').textContent);
  var COLOURS = {rtt: '#1f5fa8', forward: '#2e8b3e', back: '#d9730d', lateness: '#7b4fb0'};
  var LOST = '#d0021b';
  var DUP = '#8c564b';
  var AXIS = {stroke: '#2a3040', font: '12px system-ui, -apple-system, "DejaVu Sans", sans-serif',
    labelFont: '12px system-ui, -apple-system, "DejaVu Sans", sans-serif',
    grid: {stroke: '#e3e6eb', width: 1}, ticks: {stroke: '#c5cad3', width: 1, size: 4}};
  var charts = [];

  function sig3(v) {
    return String(+v.toPrecision(3));
  }

  /** a duration in ns with its unit */
  function fmtNs(v) {
    if (v == null || !isFinite(v)) {
      return '\u2013';
    }
    if (v === 0) {
      return '0';
    }
    var a = Math.abs(v);
    if (a >= 1e9) {
      return sig3(v / 1e9) + ' s';
    }
    if (a >= 1e6) {
      return sig3(v / 1e6) + ' ms';
    }
    if (a >= 1e3) {
      return sig3(v / 1e3) + ' \u00b5s';
    }
    return sig3(v) + ' ns';
  }

  /** seconds since the start, in ms below a 2 s session */
  function fmtSec(v, spanS) {
    if (v == null) {
      return '\u2013';
    }
    return spanS < 1 ? String(+(v * 1e3).toPrecision(4)) + ' ms' : String(+v.toPrecision(5)) + ' s';
  }

  /** the percentile of a 1/(1-p) value */
  function fmtP(x) {
    if (x == null) {
      return '\u2013';
    }
    if (x <= 1) {
      return '0%';
    }
    var decimals = Math.max(0, Math.ceil(Math.log10(x) - 1e-9) - 2);
    return (100 - 100 / x).toFixed(Math.min(decimals + 1, 6)).replace(/\.?0+$/, '') + '%';
  }

  /** a legend value: empty unless the cursor is on a point */
  function val(fmt) {
    return function (u, v, si, idx) {
      return idx == null ? '' : fmt(v, idx);
    };
  }

  function alpha(hex, a) {
    var n = parseInt(hex.slice(1), 16);
    return 'rgba(' + (n >> 16) + ',' + ((n >> 8) & 255) + ',' + (n & 255) + ',' + a + ')';
  }

  /** 1 (over more than two decades), 1-2-5, 1-1.5-2-3-4-5-7 or 1 to 9 times the powers of ten in [min, max]:
   * the first of these with at least three ticks; evenly spaced ticks when the range is narrower than that */
  function logSplits(min, max) {
    var lo = Math.floor(Math.log10(min));
    var hi = Math.ceil(Math.log10(max));
    var sets = hi - lo > 2 ? [[1]] : [[1, 2, 5], [1, 1.5, 2, 3, 4, 5, 7], [1, 2, 3, 4, 5, 6, 7, 8, 9]];
    for (var k = 0; k < sets.length; k++) {
      var out = [];
      for (var e = lo; e <= hi; e++) {
        for (var i = 0; i < sets[k].length; i++) {
          var v = sets[k][i] * Math.pow(10, e);
          if (v >= min * (1 - 1e-9) && v <= max * (1 + 1e-9)) {
            out.push(v);
          }
        }
      }
      if (out.length >= 3 || k === sets.length - 1 && out.length >= 2 && hi - lo > 2) {
        return out;
      }
    }
    return linearSplits(min, max);
  }

  /** about four ticks at a 1, 2 or 5 step */
  function linearSplits(min, max) {
    var raw = (max - min) / 4;
    var p = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = [1, 2, 5, 10].map(function (m) { return m * p; }).filter(function (s) { return s >= raw; })[0];
    var out = [];
    for (var v = Math.ceil(min / step) * step; v <= max * (1 + 1e-9) && out.length < 12; v += step) {
      out.push(+v.toPrecision(12));
    }
    return out;
  }

  /** ticks of an asinh scale in [min, max]: as logSplits on a side of zero, else 0 and the powers of ten beyond
   * the linear threshold on each side */
  function asinhSplits(min, max, threshold) {
    if (min > 0) {
      return logSplits(min, max);
    }
    if (max < 0) {
      return logSplits(-max, -min).map(function (v) { return -v; }).reverse();
    }
    var out = [0];
    for (var e = Math.floor(Math.log10(threshold)); e <= 12; e++) {
      var v = Math.pow(10, e);
      if (v <= max) {
        out.push(v);
      }
      if (-v >= min) {
        out.unshift(-v);
      }
    }
    return out;
  }

  /** a range around [min, max] with room above and below (either side of zero) */
  function padded(min, max) {
    return [min < 0 ? min * 1.3 : min / 1.3, max > 0 ? max * 1.3 : max / 1.3];
  }

  /** a delay scale: logarithmic (fitted to the data, not to whole decades) when every value is positive, else
   * asinh (linear near 0, logarithmic beyond 1 µs) */
  function delayScale(positive) {
    return positive ? {distr: 3, log: 10, range: function (u, min, max) {
      return min == null ? [1, 10] : [min / 1.3, Math.max(max * 1.3, min * 2)];
    }} : {distr: 4, asinh: 1000, range: function (u, min, max) {
      return min == null ? [-10, 10] : padded(min, max === min ? min + 1000 : max);
    }};
  }

  function delayAxis(positive, label) {
    return Object.assign({}, AXIS, {
      label: label, size: 66, labelSize: 18,
      splits: function (u, i, min, max) {
        return positive ? logSplits(min, max) : asinhSplits(min, max, 1000);
      },
      filter: function (u, splits) {
        return splits;
      },
      values: function (u, splits) {
        return splits.map(fmtNs);
      }
    });
  }

  /** creates a chart in the element data-chart=name, and records what it drew (then calls onDraw, if given,
   * with the plot and the indexes of the series drawn) */
  function make(name, opts, series, bands, cols, onDraw) {
    var el = document.querySelector('[data-chart="' + name + '"]');
    if (!el) {
      return;
    }
    var drawnSeries = {};
    var chart = {el: el};
    opts.width = Math.max(240, el.clientWidth || 600);
    opts.series = series;
    opts.bands = bands || [];
    opts.hooks = {
      drawSeries: [function (u, si) {
        drawnSeries[si] = true;
      }],
      draw: [function (u) {
        var drawn = false;
        for (var si = 1; si < u.series.length; si++) {
          if (drawnSeries[si] && !u.series[si].marker && u.data[si].some(function (v) { return v != null; })) {
            drawn = true;
          }
        }
        var bb = u.bbox;
        el.setAttribute('data-drawn', drawn && bb.width > 0 && bb.height > 0 ? 'yes' : 'no');
        ['x', 'y'].forEach(function (k, i) {
          var labels = (u.axes[i]._values || []).filter(function (v) { return v != null && v !== ''; });
          el.setAttribute('data-ticks-' + k, labels.join('|'));
        });
        if (onDraw) {
          onDraw(u, drawnSeries);
        }
        count();
      }]
    };
    chart.plot = new uPlot(opts, cols, el);
    charts.push(chart);
  }

  function count() {
    var all = document.querySelectorAll('.chart');
    var drawn = document.querySelectorAll('.chart[data-drawn="yes"]');
    document.body.setAttribute('data-charts', String(all.length));
    document.body.setAttribute('data-charts-drawn', String(drawn.length));
  }

  function percentileChart(key, name) {
    var c = data.percentiles[key];
    if (!c || c.count === 0) {
      document.querySelector('[data-chart="' + name + '"]').insertAdjacentHTML('beforeend',
        '<p class="note">no replies</p>');
      return;
    }
    var colour = COLOURS[key];
    var cm = c.c_median_ns;
    var marker = c.x.map(function (x) { return x === 2 && cm != null && (cm > 0 || !c.positive) ? cm : null; });
    var positive = c.positive && (cm == null || cm > 0);
    make(name, {
      height: 250,
      legend: {live: true},
      cursor: {points: {size: 7}},
      scales: {x: {time: false, distr: 3, log: 10, range: function (u, min, max) { return [1, Math.max(10, max)]; }},
        y: delayScale(positive)},
      axes: [Object.assign({}, AXIS, {
        label: 'percentile', labelSize: 18,
        splits: function (u, i, min, max) {
          var out = [];
          for (var v = 1; v <= max * (1 + 1e-9); v *= 10) {
            out.push(v);
          }
          return out;
        },
        filter: function (u, splits) { return splits; },
        values: function (u, splits) { return splits.map(fmtP); }
      }), delayAxis(positive, 'delay')]
    }, [
      {label: 'percentile', value: val(fmtP)},
      {label: 'exact (' + c.count + ' packets)', stroke: colour, width: 2, fill: alpha(colour, 0.08),
        fillTo: function (u) { return u.scales.y.min; },
        value: val(fmtNs)},
      {label: 'C twping median' + (cm == null ? ' (none)' : cm > 0 || !c.positive ? '' : ' (' + fmtNs(cm) + ', off scale)'),
        stroke: '#111', width: 2, paths: function () { return null; },
        points: {show: true, size: 11, width: 2, stroke: '#111', fill: '#fff'},
        value: val(function () { return cm == null ? '\u2013' : fmtNs(cm); })}
    ], [], [c.x, c.ns, marker]);
  }

  function timeChart(key, name, withMarkers) {
    var iv = data.intervals;
    var b = iv[key];
    var colour = COLOURS[key];
    var spanS = Math.max(iv.start_s[iv.start_s.length - 1], data.span_ns / 1e9);
    var series = [
      {label: 'send time', value: val(function (v) { return fmtSec(v, spanS); })},
      {label: 'max', stroke: alpha(colour, 0.45), width: 1, points: {show: false}, value: val(fmtNs)},
      {label: 'p99', stroke: alpha(colour, 0.8), width: 1.25, dash: [5, 3], points: {show: false},
        value: val(fmtNs)},
      {label: 'p50', stroke: colour, width: 2.25, value: val(fmtNs)},
      {label: 'min', stroke: alpha(colour, 0.45), width: 1, points: {show: false}, value: val(fmtNs)}
    ];
    var cols = [iv.start_s, b.max, b.p99, b.p50, b.min];
    var scales = {x: {time: false, range: function () { return [0, spanS > 0 ? spanS : 1]; }}, y: delayScale(b.positive)};
    if (withMarkers) {
      scales.mk = {range: [0, 1]};
      [['lost', iv.lost, LOST, 0.965], ['duplicates', iv.duplicates, DUP, 0.9]].forEach(function (m) {
        var total = m[1].reduce(function (a, v) { return a + v; }, 0);
        series.push({label: m[0] + ' (' + total + ')', scale: 'mk', marker: true, stroke: m[2], width: 2,
          paths: function () { return null; }, points: {show: true, size: 8, width: 1, stroke: m[2], fill: m[2]},
          value: val(function (v, idx) { return String(m[1][idx]); })});
        cols.push(m[1].map(function (v) { return v > 0 ? m[3] : null; }));
        var el = document.querySelector('[data-chart="' + name + '"]');
        el.setAttribute('data-marked-' + m[0], String(m[1].reduce(function (a, v, i) {
          return a + (cols[cols.length - 1][i] != null ? v : 0);
        }, 0)));
      });
    }
    make(name, {
      height: 230,
      legend: {live: true},
      cursor: {sync: {key: 'time'}},
      scales: scales,
      axes: [Object.assign({}, AXIS, {label: 'scheduled send time since the session start', labelSize: 18, space: 64,
        values: function (u, splits) { return splits.map(function (v) { return fmtSec(v, spanS); }); }}),
        delayAxis(b.positive, 'delay')]
    }, series, [{series: [1, 4], fill: alpha(colour, 0.12)}, {series: [2, 3], fill: alpha(colour, 0.25)}], cols);
  }

  /** the path of a stacked part: its top line, and the area between its top and its base (the parts below it in
   * that interval), so that a negative part (a one-way delay between unsynchronised clocks) goes down from its
   * base; broken where the part is unknown */
  function bandPaths(top, base) {
    return function (u, si, i0, i1) {
      var stroke = new Path2D();
      var fill = new Path2D();
      var xs = u.data[0];
      for (var i = i0; i <= i1; i++) {
        if (top[i] == null) {
          continue;
        }
        var j = i;
        while (j < i1 && top[j + 1] != null) {
          j++;
        }
        if (i === j) {                          // one interval alone: a narrow bar, not an invisible point
          var cx = u.valToPos(xs[i], 'x', true);
          var yt = u.valToPos(top[i], 'y', true);
          var yb = u.valToPos(base[i], 'y', true);
          stroke.moveTo(cx - 3, yt);
          stroke.lineTo(cx + 3, yt);
          fill.rect(cx - 3, Math.min(yt, yb), 6, Math.abs(yb - yt));
          continue;
        }
        for (var k = i; k <= j; k++) {
          var x = u.valToPos(xs[k], 'x', true);
          var y = u.valToPos(top[k], 'y', true);
          if (k === i) {
            stroke.moveTo(x, y);
            fill.moveTo(x, y);
          } else {
            stroke.lineTo(x, y);
            fill.lineTo(x, y);
          }
        }
        for (var b = j; b >= i; b--) {
          fill.lineTo(u.valToPos(xs[b], 'x', true), u.valToPos(base[b], 'y', true));
        }
        fill.closePath();
        i = j;
      }
      return {stroke: stroke, fill: fill};
    };
  }

  /** the stacked medians of the delay's parts: a part that is unknown in an interval leaves a gap there (never
   * a zero) and is marked at the top; a part unknown for every packet is in the legend as such and not drawn.
   * Sets on the chart data-parts, data-sources, data-unknown-parts (unknown for every packet),
   * data-drawn-parts (parts with a drawn area) and data-marked-unknown (intervals marked), each joined by "|" */
  function breakdownChart() {
    var bd = data.breakdown;
    if (!bd) {
      return;
    }
    var el = document.querySelector('[data-chart=breakdown]');
    var iv = data.intervals;
    var spanS = Math.max(iv.start_s[iv.start_s.length - 1], data.span_ns / 1e9);
    var palette = ['#4e79a7', '#59a14f', '#edc948', '#e15759', '#b07aa1', '#9c755f', '#76b7b2', '#ff9da7'];
    var UNKNOWN = '#7f8591';
    var series = [{label: 'send time', value: val(function (v) { return fmtSec(v, spanS); })}];
    var cols = [iv.start_s];
    var sum = iv.start_s.map(function () { return 0; });
    var unknownAt = iv.start_s.map(function () { return []; });
    var lowest = 0;
    var highest = 0;
    bd.parts.forEach(function (part, k) {
      var raw = bd.median_ns[k];
      var base = sum.slice();
      var top = raw.map(function (v, i) {
        if (v == null) {
          if (part.known > 0 && iv.received[i] > 0) {
            unknownAt[i].push(part.name);
          }
          return null;
        }
        sum[i] += v;
        lowest = Math.min(lowest, sum[i]);
        highest = Math.max(highest, sum[i]);
        return sum[i];
      });
      var colour = part.known > 0 ? palette[k % palette.length] : UNKNOWN;
      var label = part.name + ' \u00b7 ' + (part.known > 0 ? part.source : 'unknown, not drawn');
      series.push({label: label, part: part.name, stroke: colour, width: 1, dash: part.known > 0 ? [] : [4, 3],
        fill: part.known > 0 ? alpha(colour, 0.8) : 'transparent', points: {show: false}, paths: bandPaths(top, base),
        value: val(function (v, idx) { return raw[idx] == null ? 'unknown' : fmtNs(raw[idx]); })});
      cols.push(top);
    });
    var marked = unknownAt.filter(function (u) { return u.length > 0; }).length;
    series.push({label: 'part unknown (' + marked + ' intervals)', scale: 'mk', marker: true, stroke: UNKNOWN, width: 2,
      paths: function () { return null; }, points: {show: true, size: 8, width: 1, stroke: UNKNOWN, fill: '#fff'},
      value: val(function (v, idx) { return unknownAt[idx].length ? unknownAt[idx].join(', ') : ''; })});
    cols.push(unknownAt.map(function (u) { return u.length ? 0.96 : null; }));
    var names = function (f) { return bd.parts.filter(f).map(function (p) { return p.name; }).join('|'); };
    el.setAttribute('data-parts', names(function () { return true; }));
    el.setAttribute('data-sources', bd.parts.map(function (p) { return p.source; }).join('|'));
    el.setAttribute('data-unknown-parts', names(function (p) { return p.known === 0; }));
    el.setAttribute('data-marked-unknown', String(marked));
    make('breakdown', {
      height: 260,
      legend: {live: true},
      cursor: {sync: {key: 'time'}},
      scales: {x: {time: false, range: function () { return [0, spanS > 0 ? spanS : 1]; }},
        y: {range: function () { return [lowest * 1.08, highest > lowest ? highest * 1.08 : 1]; }},
        mk: {range: [0, 1]}},
      axes: [Object.assign({}, AXIS, {label: 'scheduled send time since the session start', labelSize: 18, space: 64,
        values: function (u, splits) { return splits.map(function (v) { return fmtSec(v, spanS); }); }}),
        Object.assign({}, AXIS, {label: 'delay (stacked medians)', size: 66, labelSize: 18,
          values: function (u, splits) { return splits.map(fmtNs); }})]
    }, series, [], cols, function (u, drawnSeries) {
      var drawn = [];
      for (var si = 1; si < u.series.length; si++) {
        if (u.series[si].part && drawnSeries[si] && u.data[si].some(function (v) { return v != null; })) {
          drawn.push(u.series[si].part);
        }
      }
      el.setAttribute('data-drawn-parts', drawn.join('|'));
    });
  }

  percentileChart('rtt', 'pct-rtt');
  percentileChart('forward', 'pct-forward');
  percentileChart('back', 'pct-back');
  timeChart('rtt', 'ts-rtt', true);
  timeChart('forward', 'ts-forward', false);
  timeChart('back', 'ts-back', false);
  timeChart('lateness', 'ts-lateness', false);
  breakdownChart();
  count();

  var resizing = null;
  window.addEventListener('resize', function () {
    clearTimeout(resizing);
    resizing = setTimeout(function () {
      charts.forEach(function (c) {
        c.plot.setSize({width: Math.max(240, c.el.clientWidth), height: c.plot.height});
      });
    }, 100);
  });
})();
