// The C face of the WebRTC AudioProcessing module (see include/apm_shim.h).
//
// webrtc-audio-processing 0.3 holds one lock (a CriticalSectionWrapper shared
// by AudioProcessingImpl and every component) around ProcessStream,
// ProcessReverseStream and the components' setters, so the reverse and the
// capture stream may be fed from two threads and the setters called from a
// third. What the module does not guard is kept here: the stream setter
// set_stream_delay_ms and the stream getters (VAD, speech probability,
// metrics) are called only on the capture path, right after ProcessStream,
// and their results are copied into a cache under `stats_lock` for
// agapm_get_stats to read from any thread.

#include "apm_shim.h"

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>

// The module's headers have an unused parameter in an inline virtual.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "webrtc/modules/audio_processing/include/audio_processing.h"
#include "webrtc/modules/interface/module_common_types.h"
#pragma GCC diagnostic pop

namespace {

// The AEC reports a metric it has not measured yet as this level (aec_core.c's kOffsetLevel).
constexpr int kUnknownLevel = -100;
// Capture frames between two reads of the AEC's metrics (100 ms).
constexpr int kMetricsEveryFrames = 10;

int clamp(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// Keeps the first error of a sequence of module calls.
struct FirstError {
    int code = AGAPM_OK;
    void operator()(int rc) {
        if (code == AGAPM_OK && rc != webrtc::AudioProcessing::kNoError) code = rc;
    }
};

}  // namespace

struct agapm {
    webrtc::AudioProcessing *apm = nullptr;
    int capture_channels = 1;

    // Serialises agapm_configure calls and guards `config`.
    mutable std::mutex config_lock;
    agapm_config config{};
    bool applied = false;  // whether `config` has been applied to the module once
    // What the capture path needs to know of the config without taking the lock.
    std::atomic<bool> aec_on{false};
    std::atomic<bool> ns_on{false};

    // Each stream's own frame, so the two may run at once.
    webrtc::AudioFrame reverse_frame;
    webrtc::AudioFrame capture_frame;
    int frames_since_metrics = 0;  // capture path only

    mutable std::mutex stats_lock;
    agapm_stats stats{};

    ~agapm() { delete apm; }
};

namespace {

// The 0.3 enums, from the shim's plain numbers.
webrtc::EchoCancellation::SuppressionLevel suppression(int level) {
    switch (level) {
    case 0: return webrtc::EchoCancellation::kLowSuppression;
    case 2: return webrtc::EchoCancellation::kHighSuppression;
    default: return webrtc::EchoCancellation::kModerateSuppression;
    }
}

webrtc::NoiseSuppression::Level noise_level(int level) {
    switch (level) {
    case 0: return webrtc::NoiseSuppression::kLow;
    case 2: return webrtc::NoiseSuppression::kHigh;
    case 3: return webrtc::NoiseSuppression::kVeryHigh;
    default: return webrtc::NoiseSuppression::kModerate;
    }
}

// Clamps every field of `c` into its documented range.
agapm_config sanitized(const agapm_config &c) {
    agapm_config s = c;
    s.echo_cancellation = c.echo_cancellation ? 1 : 0;
    s.echo_suppression = clamp(c.echo_suppression, 0, 2);
    s.noise_suppression = c.noise_suppression < 0 ? -1 : clamp(c.noise_suppression, 0, 3);
    s.gain_control = c.gain_control ? 1 : 0;
    s.gain_target_dbfs = clamp(c.gain_target_dbfs, 0, 31);
    s.gain_compression_db = clamp(c.gain_compression_db, 0, 90);
    s.gain_limiter = c.gain_limiter ? 1 : 0;
    s.high_pass = c.high_pass ? 1 : 0;
    return s;
}

bool same(const agapm_config &a, const agapm_config &b) {
    return a.echo_cancellation == b.echo_cancellation && a.echo_suppression == b.echo_suppression &&
           a.noise_suppression == b.noise_suppression && a.gain_control == b.gain_control &&
           a.gain_target_dbfs == b.gain_target_dbfs && a.gain_compression_db == b.gain_compression_db &&
           a.gain_limiter == b.gain_limiter && a.high_pass == b.high_pass;
}

// Reads the stream getters after a ProcessStream (capture path only) into the cache.
void update_stats(agapm *h) {
    webrtc::AudioProcessing *apm = h->apm;
    bool voice = apm->voice_detection()->stream_has_voice();
    bool ns = h->ns_on.load(std::memory_order_relaxed);
    const bool aec_on = h->aec_on.load(std::memory_order_relaxed);
    float probability = ns ? apm->noise_suppression()->speech_probability() : 0.0f;
    // NS switched off by another thread since the load above: no valid probability.
    if (!(probability >= 0.0f && probability <= 1.0f)) ns = false;

    bool read_metrics = false;
    webrtc::EchoCancellation::Metrics metrics{};
    int median = -1, deviation = -1;
    float poor = 0;
    bool have_metrics = false, have_delay = false;
    if (aec_on) {
        if (++h->frames_since_metrics >= kMetricsEveryFrames) {
            h->frames_since_metrics = 0;
            read_metrics = true;
            webrtc::EchoCancellation *aec = apm->echo_cancellation();
            have_metrics = aec->GetMetrics(&metrics) == webrtc::AudioProcessing::kNoError;
            have_delay = aec->GetDelayMetrics(&median, &deviation, &poor) ==
                             webrtc::AudioProcessing::kNoError &&
                         median >= 0;
        }
    } else {
        h->frames_since_metrics = kMetricsEveryFrames;  // read at the first frame once on
    }

    std::lock_guard<std::mutex> guard(h->stats_lock);
    agapm_stats &s = h->stats;
    s.voice_detected = voice ? 1 : 0;
    s.has_speech_probability = ns ? 1 : 0;
    s.speech_probability = ns ? static_cast<double>(probability) : 0.0;
    if (!aec_on) {
        s.has_erle = s.has_erl = s.has_delay = 0;
        s.erle_db = s.erl_db = 0;
        s.delay_median_ms = 0;
    } else if (read_metrics) {
        int erle = metrics.echo_return_loss_enhancement.average;
        int erl = metrics.echo_return_loss.average;
        s.has_erle = have_metrics && erle > kUnknownLevel;
        s.erle_db = s.has_erle ? erle : 0;
        s.has_erl = have_metrics && erl > kUnknownLevel;
        s.erl_db = s.has_erl ? erl : 0;
        s.has_delay = have_delay ? 1 : 0;
        s.delay_median_ms = have_delay ? median : 0;
    }
}

}  // namespace

extern "C" {

agapm *agapm_create(int capture_channels) {
    if (capture_channels != 1 && capture_channels != 2) return nullptr;
    try {
        std::unique_ptr<agapm> h(new agapm());
        h->capture_channels = capture_channels;
        webrtc::Config extra;
        extra.Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(true));
        extra.Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(true));
        // ExperimentalAgc is on unless switched off, and then gain_control() is a
        // facade for the analog-only AgcManagerDirect that ignores set_mode, the
        // target and the compression gain: the adaptive digital AGC needs it off.
        extra.Set<webrtc::ExperimentalAgc>(new webrtc::ExperimentalAgc(false));
        h->apm = webrtc::AudioProcessing::Create(extra);
        if (!h->apm) return nullptr;
        const webrtc::AudioProcessing::ChannelLayout layout =
            capture_channels == 2 ? webrtc::AudioProcessing::kStereo : webrtc::AudioProcessing::kMono;
        FirstError err;
        err(h->apm->Initialize(AGAPM_SAMPLE_RATE, AGAPM_SAMPLE_RATE, AGAPM_SAMPLE_RATE,
                               layout, layout, webrtc::AudioProcessing::kMono));
        // The AEC's statistics are wanted whenever it runs; the VAD always runs.
        err(h->apm->echo_cancellation()->enable_drift_compensation(false));
        err(h->apm->echo_cancellation()->enable_metrics(true));
        err(h->apm->echo_cancellation()->enable_delay_logging(true));
        err(h->apm->gain_control()->set_mode(webrtc::GainControl::kAdaptiveDigital));
        err(h->apm->voice_detection()->set_likelihood(webrtc::VoiceDetection::kModerateLikelihood));
        err(h->apm->voice_detection()->Enable(true));
        // The setters above reach the real components (not a facade that ignores them).
        if (err.code != AGAPM_OK ||
            h->apm->gain_control()->mode() != webrtc::GainControl::kAdaptiveDigital)
            return nullptr;
        agapm_config off{};
        off.echo_suppression = 1;
        off.noise_suppression = -1;
        off.gain_target_dbfs = 3;
        off.gain_compression_db = 9;
        off.gain_limiter = 1;
        if (agapm_configure(h.get(), &off) != AGAPM_OK) return nullptr;
        h->frames_since_metrics = kMetricsEveryFrames;
        return h.release();
    } catch (...) {
        return nullptr;
    }
}

void agapm_destroy(agapm *apm) {
    try {
        delete apm;
    } catch (...) {
    }
}

int agapm_configure(agapm *h, const agapm_config *config) {
    if (!h || !config) return AGAPM_E_ARGUMENT;
    try {
        const agapm_config c = sanitized(*config);
        std::lock_guard<std::mutex> guard(h->config_lock);
        // Nothing to do for the configuration in force (callers may re-apply it often;
        // the AGC's setters recompute its gain table).
        if (h->applied && same(c, h->config)) return AGAPM_OK;
        webrtc::AudioProcessing *apm = h->apm;
        FirstError err;

        webrtc::EchoCancellation *aec = apm->echo_cancellation();
        err(aec->set_suppression_level(suppression(c.echo_suppression)));
        err(aec->Enable(c.echo_cancellation != 0));

        webrtc::NoiseSuppression *ns = apm->noise_suppression();
        if (c.noise_suppression >= 0) err(ns->set_level(noise_level(c.noise_suppression)));
        err(ns->Enable(c.noise_suppression >= 0));

        webrtc::GainControl *agc = apm->gain_control();
        err(agc->set_target_level_dbfs(c.gain_target_dbfs));
        err(agc->set_compression_gain_db(c.gain_compression_db));
        err(agc->enable_limiter(c.gain_limiter != 0));
        err(agc->Enable(c.gain_control != 0));

        err(apm->high_pass_filter()->Enable(c.high_pass != 0));

        h->config = c;
        h->applied = true;
        h->aec_on.store(c.echo_cancellation != 0, std::memory_order_relaxed);
        h->ns_on.store(c.noise_suppression >= 0, std::memory_order_relaxed);
        return err.code;
    } catch (...) {
        return AGAPM_E_INTERNAL;
    }
}

int agapm_get_config(const agapm *h, agapm_config *out) {
    if (!h || !out) return AGAPM_E_ARGUMENT;
    try {
        std::lock_guard<std::mutex> guard(h->config_lock);
        *out = h->config;
        return AGAPM_OK;
    } catch (...) {
        return AGAPM_E_INTERNAL;
    }
}

int agapm_process_reverse(agapm *h, const int16_t *pcm, int samples, int channels) {
    if (!h || !pcm || (channels != 1 && channels != 2) ||
        samples != AGAPM_FRAME_SAMPLES * channels)
        return AGAPM_E_ARGUMENT;
    try {
        webrtc::AudioFrame &f = h->reverse_frame;
        f.UpdateFrame(0, 0, nullptr, AGAPM_FRAME_SAMPLES, AGAPM_SAMPLE_RATE,
                      webrtc::AudioFrame::kNormalSpeech, webrtc::AudioFrame::kVadUnknown, 1);
        if (channels == 1) {
            std::memcpy(f.data_, pcm, sizeof(int16_t) * AGAPM_FRAME_SAMPLES);
        } else {
            for (int i = 0; i < AGAPM_FRAME_SAMPLES; i++)
                f.data_[i] = static_cast<int16_t>((int32_t(pcm[2 * i]) + int32_t(pcm[2 * i + 1])) / 2);
        }
        return h->apm->ProcessReverseStream(&f);
    } catch (...) {
        return AGAPM_E_INTERNAL;
    }
}

int agapm_process_capture(agapm *h, int16_t *pcm, int samples, int delay_ms) {
    if (!h || !pcm || samples != AGAPM_FRAME_SAMPLES * h->capture_channels) return AGAPM_E_ARGUMENT;
    try {
        webrtc::AudioFrame &f = h->capture_frame;
        f.UpdateFrame(0, 0, pcm, AGAPM_FRAME_SAMPLES, AGAPM_SAMPLE_RATE,
                      webrtc::AudioFrame::kNormalSpeech, webrtc::AudioFrame::kVadUnknown,
                      h->capture_channels);
        webrtc::AudioProcessing *apm = h->apm;
        // Clamped here to the module's range (it would clamp too, with a warning).
        int delay_rc = apm->set_stream_delay_ms(clamp(delay_ms, 0, 500));
        int rc = apm->ProcessStream(&f);
        if (rc != webrtc::AudioProcessing::kNoError &&
            rc != webrtc::AudioProcessing::kBadStreamParameterWarning)
            return rc;
        std::memcpy(pcm, f.data_, sizeof(int16_t) * size_t(samples));
        update_stats(h);
        return rc != webrtc::AudioProcessing::kNoError ? rc : delay_rc;
    } catch (...) {
        return AGAPM_E_INTERNAL;
    }
}

int agapm_get_stats(const agapm *h, agapm_stats *out) {
    if (!h || !out) return AGAPM_E_ARGUMENT;
    try {
        std::lock_guard<std::mutex> guard(h->stats_lock);
        *out = h->stats;
        return AGAPM_OK;
    } catch (...) {
        return AGAPM_E_INTERNAL;
    }
}

}  // extern "C"
