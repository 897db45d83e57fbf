//! Line charts (SVG or PNG by extension) with plotters, for `pagelab mrc --plot` and experiment reports.
//! The font is compiled in (DejaVu Sans), so plots render on machines without fonts installed.

use anyhow::{anyhow, bail, Context, Result};
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

/// One named line.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// A chart of lines over a shared x axis.
#[derive(Clone, Debug)]
pub struct LineChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    /// Logarithmic x axis (sizes spanning decades).
    pub log_x: bool,
    /// Fixed y range; `None`: from 0 to the largest value (plus headroom).
    pub y_range: Option<(f64, f64)>,
}

const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is valid by construction; failure here would be a build problem, not an input one.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular());
    });
}

/// Refuses a `--plot` path the figure could not be written to, before the run it plots: a name without
/// `.svg` or `.png`, a directory, or a missing directory (the run's result was lost to an error at its end,
/// which also named the temporary file beside the destination).
pub fn check_path(path: &Path) -> Result<()> {
    figure_format(path).map_err(|why| anyhow!("--plot {}: {why}", path.display()))?;
    pagelab_trace::output::check_destination(path).context("--plot")?;
    Ok(())
}

/// A figure's format, from its name.
enum FigureFormat {
    Svg,
    Png,
}

fn figure_format(path: &Path) -> std::result::Result<FigureFormat, &'static str> {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase().as_str() {
        "svg" => Ok(FigureFormat::Svg),
        "png" => Ok(FigureFormat::Png),
        _ => Err("expected a .svg or .png name"),
    }
}

/// Write `panels` stacked top to bottom into one figure at `path`: `.svg` or `.png`.
pub fn write_figure(panels: &[LineChart], path: &Path) -> Result<()> {
    register_font();
    if panels.is_empty() {
        bail!("a figure needs at least one chart");
    }
    let format = figure_format(path).map_err(|why| anyhow!("plot file `{}`: {why}", path.display()))?;
    // Up to four panels stack in one column; more go in two columns, row by row.
    let (columns, rows) = grid(panels.len());
    let size = (900 * columns as u32, if panels.len() == 1 { 600 } else { 460 * rows as u32 });
    match format {
        FigureFormat::Svg => draw_panels(panels, SVGBackend::new(path, size).into_drawing_area()),
        FigureFormat::Png => draw_panels(panels, BitMapBackend::new(path, size).into_drawing_area()),
    }
    .map_err(|e| anyhow!("drawing {}: {e}", path.display()))
}

/// (columns, rows) of a figure of `n` panels.
fn grid(n: usize) -> (usize, usize) {
    let columns = if n > 4 { 2 } else { 1 };
    (columns, n.div_ceil(columns))
}

fn draw_panels<DB: DrawingBackend>(panels: &[LineChart], root: DrawingArea<DB, Shift>) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let (columns, rows) = grid(panels.len());
    for (chart, area) in panels.iter().zip(root.split_evenly((rows, columns))) {
        chart.draw(area)?;
    }
    root.present().map_err(|e| e.to_string())
}

impl LineChart {
    /// Write the chart to `path`: `.svg` or `.png`.
    pub fn write(&self, path: &Path) -> Result<()> {
        write_figure(std::slice::from_ref(self), path)
    }

    fn bounds(&self) -> ((f64, f64), (f64, f64)) {
        let pts = || self.series.iter().flat_map(|s| s.points.iter());
        let x_min = pts().map(|p| p.0).fold(f64::INFINITY, f64::min);
        let x_max = pts().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
        let (x_min, x_max) =
            if x_min.is_finite() { (x_min, x_max.max(x_min * 1.0001 + 1e-9)) } else { (0.0, 1.0) };
        let y = self.y_range.unwrap_or_else(|| {
            let y_max = pts().map(|p| p.1).fold(0.0, f64::max);
            (0.0, if y_max > 0.0 { y_max * 1.08 } else { 1.0 })
        });
        ((x_min, x_max), y)
    }

    fn draw<DB: DrawingBackend>(&self, area: DrawingArea<DB, Shift>) -> Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        let e = |err: DrawingAreaErrorKind<DB::ErrorType>| err.to_string();
        let ((x0, x1), (y0, y1)) = self.bounds();
        let mut builder = ChartBuilder::on(&area);
        builder
            .caption(&self.title, ("sans-serif", 22))
            .margin(14)
            // Room for the last x label, which is centred on the plot's right edge.
            .margin_right(30)
            .x_label_area_size(44)
            .y_label_area_size(64);
        if self.log_x {
            self.draw_lines(builder.build_cartesian_2d((x0.max(1e-9)..x1).log_scale(), y0..y1).map_err(e)?)
        } else {
            self.draw_lines(builder.build_cartesian_2d(x0..x1, y0..y1).map_err(e)?)
        }
    }

    /// Mesh, lines, markers and legend on a chart of either x scale.
    fn draw_lines<'a, DB, X>(
        &self,
        mut chart: ChartContext<'a, DB, Cartesian2d<X, RangedCoordf64>>,
    ) -> Result<(), String>
    where
        DB: DrawingBackend + 'a,
        DB::ErrorType: 'static,
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let e = |err: DrawingAreaErrorKind<DB::ErrorType>| err.to_string();
        chart
            .configure_mesh()
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .x_label_formatter(&|x| axis_number(*x))
            .y_label_formatter(&|y| axis_number(*y))
            .draw()
            .map_err(e)?;
        for (i, s) in self.series.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            chart
                .draw_series(LineSeries::new(s.points.iter().copied(), color.stroke_width(2)))
                .map_err(e)?
                .label(&s.name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
            // Markers only where they stay readable: a few measured points, not a dense curve.
            if s.points.len() <= 40 {
                chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(e)?;
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(e)?;
        Ok(())
    }
}

/// An axis label: whole numbers without a fraction (`1000`, not `1000.0`), others to three significant
/// digits without trailing zeros (`0.5`, `12.3`).
fn axis_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        let digits = (2 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
        let text = format!("{x:.digits$}");
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_numbers_are_short() {
        let shown: Vec<String> = [1.0, 1000.0, 0.5, 12.345, 0.0125].into_iter().map(axis_number).collect();
        assert_eq!(shown, ["1", "1000", "0.5", "12.3", "0.0125"]);
    }

    #[test]
    fn writes_svg_and_png_and_refuses_other_names() {
        let dir = tempfile::tempdir().unwrap();
        let chart = LineChart {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            series: vec![Series {
                name: "legend-name".into(),
                points: vec![(1.0, 0.5), (10.0, 0.25), (100.0, 0.1)],
            }],
            log_x: true,
            y_range: Some((0.0, 1.0)),
        };
        for name in ["c.svg", "c.png"] {
            let p = dir.path().join(name);
            chart.write(&p).unwrap();
            assert!(std::fs::metadata(&p).unwrap().len() > 1000, "{name} is too small to hold a chart");
        }
        let svg = std::fs::read_to_string(dir.path().join("c.svg")).unwrap().replace('\n', "");
        assert!(svg.contains("<svg") && svg.contains(">legend-name</text>"), "legend text missing");
        assert!(chart.write(&dir.path().join("c.pdf")).unwrap_err().to_string().contains(".svg or .png"));
    }
}
