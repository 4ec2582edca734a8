//! SVG charts with plotters (as criterion draws its own): grouped bars with optional error
//! whiskers, and scatter plots, each on a linear or a logarithmic value axis.

use super::error::LabError;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use std::path::Path;

/// The series colours, in order.
const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// The colour of series `i`.
fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// One bar: its value and an optional interval drawn as a whisker.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bar {
    /// Height.
    pub value: f64,
    /// `(low, high)` whisker.
    pub interval: Option<(f64, f64)>,
}

/// A grouped bar chart: `categories` along the x axis, one bar per series in each.
#[derive(Clone, Debug, Default)]
pub struct BarChart {
    /// Caption.
    pub title: String,
    /// Value axis label.
    pub y_label: String,
    /// Category names.
    pub categories: Vec<String>,
    /// Series names.
    pub series: Vec<String>,
    /// `bars[series][category]`; `None` leaves a gap.
    pub bars: Vec<Vec<Option<Bar>>>,
    /// A logarithmic value axis.
    pub log: bool,
}

/// A labelled point `(x, y, label)`.
pub type Point = (f64, f64, String);

/// Points of named series.
#[derive(Clone, Debug, Default)]
pub struct Scatter {
    /// Caption.
    pub title: String,
    /// x axis label.
    pub x_label: String,
    /// y axis label.
    pub y_label: String,
    /// `(name, points)`, each point `(x, y, label)`.
    pub series: Vec<(String, Vec<Point>)>,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Logarithmic y axis.
    pub log_y: bool,
}

const SIZE: (u32, u32) = (900, 500);

fn plot_error(path: &Path, e: impl std::fmt::Display) -> LabError {
    LabError::Plot {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// The value range of a set of values (with room above; positive for a log axis).
fn value_range(values: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let v: Vec<f64> = values
        .filter(|x| x.is_finite() && (!log || *x > 0.0))
        .collect();
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if v.is_empty() {
        return if log { (1.0, 10.0) } else { (0.0, 1.0) };
    }
    if log {
        (lo / 2.0, hi * 2.0)
    } else {
        let lo = lo.min(0.0);
        let hi = if hi > lo { hi } else { lo + 1.0 };
        (lo, hi + (hi - lo) * 0.1)
    }
}

impl BarChart {
    /// Draws the chart into `path`.
    pub fn draw(&self, path: &Path) -> Result<(), LabError> {
        let values = self.bars.iter().flatten().flatten().flat_map(|b| {
            [
                Some(b.value),
                b.interval.map(|i| i.0),
                b.interval.map(|i| i.1),
            ]
            .into_iter()
            .flatten()
        });
        let (lo, hi) = value_range(values, self.log);
        let n = self.categories.len().max(1) as f64;
        let x = -0.5..n - 0.5;
        if self.log {
            self.draw_on(path, x, (lo..hi).log_scale(), lo)
        } else {
            self.draw_on(path, x, lo..hi, lo)
        }
    }

    fn draw_on<Y>(
        &self,
        path: &Path,
        x: std::ops::Range<f64>,
        y: Y,
        floor: f64,
    ) -> Result<(), LabError>
    where
        Y: AsRangedCoord<Value = f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        let root = SVGBackend::new(path, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| plot_error(path, e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(&self.title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(80)
            .build_cartesian_2d::<std::ops::Range<f64>, Y>(x, y)
            .map_err(|e| plot_error(path, e))?;
        let names = self.categories.clone();
        let label = move |v: &f64| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 {
                names.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(self.categories.len().max(1))
            .x_label_formatter(&label)
            .y_desc(&self.y_label)
            .draw()
            .map_err(|e| plot_error(path, e))?;
        let m = self.series.len().max(1) as f64;
        let width = 0.8 / m;
        for (j, name) in self.series.iter().enumerate() {
            let c = colour(j);
            let row = self.bars.get(j).cloned().unwrap_or_default();
            let rects = row.iter().enumerate().filter_map(|(i, b)| {
                let b = (*b)?;
                let x0 = i as f64 - 0.4 + j as f64 * width;
                Some(Rectangle::new(
                    [(x0, floor), (x0 + width * 0.9, b.value)],
                    c.filled(),
                ))
            });
            chart
                .draw_series(rects)
                .map_err(|e| plot_error(path, e))?
                .label(name.as_str())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], c.filled()));
            let whiskers = row.iter().enumerate().filter_map(|(i, b)| {
                let (l, h) = (*b)?.interval?;
                let xm = i as f64 - 0.4 + (j as f64 + 0.45) * width;
                Some(PathElement::new(
                    vec![(xm, l), (xm, h)],
                    BLACK.stroke_width(2),
                ))
            });
            chart
                .draw_series(whiskers)
                .map_err(|e| plot_error(path, e))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|e| plot_error(path, e))?;
        root.present().map_err(|e| plot_error(path, e))
    }
}

impl Scatter {
    /// Draws the chart into `path`.
    pub fn draw(&self, path: &Path) -> Result<(), LabError> {
        let points = || self.series.iter().flat_map(|(_, p)| p.iter());
        let (x0, x1) = value_range(points().map(|p| p.0), self.log_x);
        let (y0, y1) = value_range(points().map(|p| p.1), self.log_y);
        match (self.log_x, self.log_y) {
            (false, false) => self.draw_on(path, x0..x1, y0..y1),
            (true, false) => self.draw_on(path, (x0..x1).log_scale(), y0..y1),
            (false, true) => self.draw_on(path, x0..x1, (y0..y1).log_scale()),
            (true, true) => self.draw_on(path, (x0..x1).log_scale(), (y0..y1).log_scale()),
        }
    }

    fn draw_on<X, Y>(&self, path: &Path, x: X, y: Y) -> Result<(), LabError>
    where
        X: AsRangedCoord<Value = f64>,
        X::CoordDescType: ValueFormatter<f64>,
        Y: AsRangedCoord<Value = f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        let root = SVGBackend::new(path, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| plot_error(path, e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(&self.title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(80)
            .build_cartesian_2d(x, y)
            .map_err(|e| plot_error(path, e))?;
        chart
            .configure_mesh()
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .draw()
            .map_err(|e| plot_error(path, e))?;
        for (j, (name, points)) in self.series.iter().enumerate() {
            let c = colour(j);
            let finite: Vec<&Point> = points
                .iter()
                .filter(|p| p.0.is_finite() && p.1.is_finite())
                .collect();
            chart
                .draw_series(finite.iter().map(|p| {
                    EmptyElement::at((p.0, p.1))
                        + Circle::new((0, 0), 5, c.filled())
                        + Text::new(p.2.clone(), (7, -12), ("sans-serif", 12).into_font())
                }))
                .map_err(|e| plot_error(path, e))?
                .label(name.as_str())
                .legend(move |(x, y)| Circle::new((x + 5, y), 5, c.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|e| plot_error(path, e))?;
        root.present().map_err(|e| plot_error(path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charts_are_svg_with_their_labels() {
        let dir = std::env::temp_dir().join(format!("che-lab-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bars = BarChart {
            title: "cost".into(),
            y_label: "ns".into(),
            categories: vec!["main".into(), "Evaluate".into()],
            series: vec!["interp".into(), "native".into()],
            bars: vec![
                vec![
                    Some(Bar {
                        value: 100.0,
                        interval: Some((90.0, 110.0)),
                    }),
                    Some(Bar {
                        value: 50.0,
                        interval: None,
                    }),
                ],
                vec![
                    None,
                    Some(Bar {
                        value: 5.0,
                        interval: None,
                    }),
                ],
            ],
            log: true,
        };
        let p = dir.join("bars.svg");
        bars.draw(&p).unwrap();
        let svg = std::fs::read_to_string(&p).unwrap();
        assert!(svg.starts_with("<svg"));
        for word in ["cost", "main", "Evaluate", "interp", "native"] {
            assert!(svg.contains(word), "{word}");
        }
        let scatter = Scatter {
            title: "break-even".into(),
            x_label: "size".into(),
            y_label: "runs".into(),
            series: vec![("programs".into(), vec![(10.0, 3.0, "fib".into())])],
            log_x: true,
            log_y: true,
        };
        let p = dir.join("scatter.svg");
        scatter.draw(&p).unwrap();
        let svg = std::fs::read_to_string(&p).unwrap();
        assert!(svg.contains("fib") && svg.contains("break-even"));
    }
}
