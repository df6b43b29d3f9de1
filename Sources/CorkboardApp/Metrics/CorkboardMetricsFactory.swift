import CoreMetrics
import Prometheus

/// swift-metrics' factory over a Prometheus registry, with each metric's help text and buckets
/// from `MetricCatalog` (swift-prometheus' own factory gives no help and one set of buckets for
/// all): a counter is a Prometheus counter, a gauge (`Gauge`, `Meter`) a gauge, a `Timer` a
/// histogram in seconds and an aggregating `Recorder` a value histogram.
struct CorkboardMetricsFactory: MetricsFactory {
    let registry: PrometheusCollectorRegistry

    private func help(_ label: String) -> String { MetricCatalog.help[label] ?? "" }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(name: label, labels: dimensions, help: help(label))
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(name: label, labels: dimensions, help: help(label))
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(name: label, labels: dimensions, help: help(label)) }
        return registry.makeValueHistogram(
            name: label, labels: dimensions,
            buckets: MetricCatalog.valueBuckets[label] ?? MetricCatalog.defaultValueBuckets, help: help(label))
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(name: label, labels: dimensions, help: help(label))
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        registry.makeDurationHistogram(
            name: label, labels: dimensions,
            buckets: MetricCatalog.durationBuckets[label] ?? MetricCatalog.defaultDurationBuckets, help: help(label))
    }

    func destroyCounter(_ handler: any CounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyRecorder(_ handler: any RecorderHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
        if let histogram = handler as? ValueHistogram { registry.unregisterValueHistogram(histogram) }
    }

    func destroyMeter(_ handler: any MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
    }

    func destroyTimer(_ handler: any TimerHandler) {
        if let histogram = handler as? DurationHistogram { registry.unregisterDurationHistogram(histogram) }
    }
}
