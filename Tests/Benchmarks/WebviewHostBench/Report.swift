import Foundation

/// A goal a variant's median is checked against, relative to the figure's baseline.
enum Limit {
    /// At most this many times the baseline's median.
    case ratio(Double)
    /// At most the baseline's median plus this much.
    case over(Double)

    func isMet(median: Double, baseline: Double) -> Bool {
        switch self {
        case .ratio(let ratio): median <= baseline * ratio
        case .over(let delta): median - baseline <= delta
        }
    }
}

/// One figure: samples per variant, compared with the baseline's median.
struct Figure {
    let name: String
    let unit: String
    let goal: String
    /// The baseline first, then the library's variants.
    let variants: [String]
    /// Goals checked per variant (printed "met" or "NOT met"); a variant without one only prints `goal`.
    var limits: [String: Limit] = [:]
    var samples: [String: [Double]] = [:]
    var baseline: String { variants[0] }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// The goal column of `variant`'s row: the goal, and whether the median meets it.
    func goalText(for variant: String, median: Double, baselineMedian: Double) -> String {
        guard let limit = limits[variant] else { return goal }
        let text: String = switch limit {
        case .ratio(let ratio): goal.isEmpty ? String(format: "<= %.2gx", ratio) : goal
        case .over(let delta): String(format: "<= %+.0f %@", delta, unit)
        }
        return text + (limit.isMet(median: median, baseline: baselineMedian) ? ": met" : ": NOT met")
    }

    /// The same figure for another toolkit's variants (`suffix` appended to each, `label` to the name).
    func forToolkit(suffix: String, label: String) -> Figure {
        guard !suffix.isEmpty else { return self }
        var figure = Figure(name: name + label, unit: unit, goal: goal, variants: variants.map { $0 + suffix })
        figure.limits = Dictionary(uniqueKeysWithValues: limits.map { ($0.key + suffix, $0.value) })
        return figure
    }
}

/// What the benchmark prints: a table for people or JSON for machines.
struct Report {
    var figures: [Figure]
    var runs: Int
    var notes: [String] = []

    var table: String {
        var lines = ["runs: \(runs) per variant, interleaved; median [min-max]; ratio = median / the baseline's median"]
        lines += notes
        lines += ["", "| figure | variant | median [min-max] | vs baseline | goal |", "|---|---|---|---|---|"]
        for figure in figures {
            let baselineMedian = Figure.median(figure.samples[figure.baseline] ?? [])
            for variant in figure.variants {
                guard let values = figure.samples[variant], !values.isEmpty else { continue }
                let median = Figure.median(values)
                let isBaseline = variant == figure.baseline
                let versus = isBaseline
                    ? "baseline"
                    : String(format: "%.2fx (%+.2f %@)", median / baselineMedian, median - baselineMedian, figure.unit)
                let goal = isBaseline ? "" : figure.goalText(for: variant, median: median, baselineMedian: baselineMedian)
                lines.append(String(
                    format: "| %@ | %@ | %.2f [%.2f-%.2f] %@ | %@ | %@ |", figure.name, variant, median,
                    values.min()!, values.max()!, figure.unit, versus, goal))
            }
        }
        return lines.joined(separator: "\n")
    }

    var json: String {
        let object: [[String: Any]] = figures.map { figure in
            let baselineMedian = Figure.median(figure.samples[figure.baseline] ?? [])
            var variants: [String: Any] = [:]
            for (variant, values) in figure.samples where !values.isEmpty {
                let median = Figure.median(values)
                var entry: [String: Any] = [
                    "median": median, "min": values.min()!, "max": values.max()!,
                    "ratioToBaseline": median / baselineMedian, "samples": values,
                ]
                if let limit = figure.limits[variant] { entry["goalMet"] = limit.isMet(median: median, baseline: baselineMedian) }
                variants[variant] = entry
            }
            return [
                "figure": figure.name, "unit": figure.unit, "goal": figure.goal, "baseline": figure.baseline,
                "variants": variants,
            ]
        }
        let data = try! JSONSerialization.data(withJSONObject: ["runs": runs, "figures": object], options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}
