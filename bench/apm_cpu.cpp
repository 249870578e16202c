/*
 * apm_cpu.cpp — the WebRTC AudioProcessing module (webrtc-audio-processing
 * 0.3) alone in a loop, with the configuration the engine's VoiceProcessor
 * uses for device capture: the CPU time the module itself costs per second of
 * audio, to set beside the engine's figure for the same signals.
 *
 * The configuration is the one Sources/CAudioProcessing/apm_shim.cpp builds:
 * AudioProcessing::Create with ExtendedFilter, DelayAgnostic and
 * ExperimentalAgc off (so the adaptive digital AGC is the one that runs);
 * the full AEC at moderate suppression with metrics and delay logging, noise
 * suppression moderate, gain control adaptive digital (target 3 dBFS,
 * compression 9 dB, limiter), the high-pass filter and the VAD. Per 10 ms:
 * the far end (the playout, 48 kHz, stereo by default) downmixed to mono and
 * given to ProcessReverseStream, then set_stream_delay_ms and ProcessStream
 * on 48 kHz mono capture; the metrics the engine reads are read every 10
 * blocks, the VAD and speech probability every block, as the shim does.
 *
 * The inputs are raw 48 kHz s16le files (the far end; the capture, i.e. echo
 * and/or near end), read whole into memory and looped to SECONDS of audio
 * (the shorter of the two sets the loop). CPU = getrusage(RUSAGE_SELF) user +
 * system over the processing loop only (not reading the files or creating
 * the module).
 *
 *   apm_cpu [-s SECONDS=60] [-c FAR_CHANNELS=2] [-d DELAY_MS=60] FAR.s16 CAPTURE.s16
 *     -> {"apm_bare_cpu_ms_per_s": x}
 *
 * Build: g++ -std=c++14 -O2 apm_cpu.cpp -o apm_cpu \
 *          $(pkg-config --cflags --libs webrtc-audio-processing)
 */
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

// The module's headers have an unused parameter in an inline virtual.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "webrtc/modules/audio_processing/include/audio_processing.h"
#include "webrtc/modules/interface/module_common_types.h"
#pragma GCC diagnostic pop

namespace {

constexpr int kRate = 48000;
constexpr int kFrame = 480;  // 10 ms at 48 kHz
constexpr int kMetricsEveryFrames = 10;

// The whole file at `path` as 16-bit samples (host order: little-endian on x86 and arm64).
bool read_s16(const char *path, std::vector<int16_t> &out) {
    FILE *f = std::fopen(path, "rb");
    if (!f) return false;
    int16_t buf[4096];
    size_t n;
    while ((n = std::fread(buf, sizeof(int16_t), 4096, f)) > 0) out.insert(out.end(), buf, buf + n);
    bool ok = !std::ferror(f);
    std::fclose(f);
    return ok;
}

double cpu_ms() {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3 + ru.ru_stime.tv_sec * 1e3 +
           ru.ru_stime.tv_usec / 1e3;
}

// The engine's device-capture configuration; nullptr when a call fails.
webrtc::AudioProcessing *make_apm() {
    webrtc::Config extra;
    extra.Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(true));
    extra.Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(true));
    extra.Set<webrtc::ExperimentalAgc>(new webrtc::ExperimentalAgc(false));
    std::unique_ptr<webrtc::AudioProcessing> apm(webrtc::AudioProcessing::Create(extra));
    if (!apm) return nullptr;
    int err = 0;
    auto check = [&err](int rc) { if (rc != 0 && err == 0) err = rc; };
    check(apm->Initialize(kRate, kRate, kRate, webrtc::AudioProcessing::kMono, webrtc::AudioProcessing::kMono,
                          webrtc::AudioProcessing::kMono));
    webrtc::EchoCancellation *aec = apm->echo_cancellation();
    check(aec->enable_drift_compensation(false));
    check(aec->enable_metrics(true));
    check(aec->enable_delay_logging(true));
    check(aec->set_suppression_level(webrtc::EchoCancellation::kModerateSuppression));
    check(aec->Enable(true));
    check(apm->noise_suppression()->set_level(webrtc::NoiseSuppression::kModerate));
    check(apm->noise_suppression()->Enable(true));
    webrtc::GainControl *agc = apm->gain_control();
    check(agc->set_mode(webrtc::GainControl::kAdaptiveDigital));
    check(agc->set_target_level_dbfs(3));
    check(agc->set_compression_gain_db(9));
    check(agc->enable_limiter(true));
    check(agc->Enable(true));
    check(apm->high_pass_filter()->Enable(true));
    check(apm->voice_detection()->set_likelihood(webrtc::VoiceDetection::kModerateLikelihood));
    check(apm->voice_detection()->Enable(true));
    if (err != 0 || agc->mode() != webrtc::GainControl::kAdaptiveDigital) {
        std::fprintf(stderr, "apm_cpu: configuring the module failed (%d)\n", err);
        return nullptr;
    }
    return apm.release();
}

void usage() {
    std::fprintf(stderr, "usage: apm_cpu [-s SECONDS] [-c FAR_CHANNELS] [-d DELAY_MS] FAR.s16 CAPTURE.s16\n");
}

}  // namespace

int main(int argc, char **argv) {
    double seconds = 60;
    int far_channels = 2, delay_ms = 60, opt;
    while ((opt = getopt(argc, argv, "s:c:d:")) != -1) {
        switch (opt) {
        case 's': seconds = std::atof(optarg); break;
        case 'c': far_channels = std::atoi(optarg); break;
        case 'd': delay_ms = std::atoi(optarg); break;
        default: usage(); return 2;
        }
    }
    if (argc - optind != 2 || seconds <= 0 || (far_channels != 1 && far_channels != 2)) {
        usage();
        return 2;
    }
    std::vector<int16_t> far, capture;
    if (!read_s16(argv[optind], far) || !read_s16(argv[optind + 1], capture)) {
        std::fprintf(stderr, "apm_cpu: cannot read the input files\n");
        return 1;
    }
    const size_t far_frames = far.size() / (size_t(kFrame) * far_channels);
    const size_t capture_frames = capture.size() / kFrame;
    const size_t loop = far_frames < capture_frames ? far_frames : capture_frames;
    if (loop == 0) {
        std::fprintf(stderr, "apm_cpu: the inputs hold less than 10 ms\n");
        return 1;
    }
    std::unique_ptr<webrtc::AudioProcessing> apm(make_apm());
    if (!apm) return 1;

    const long frames = long(seconds * 100);
    webrtc::AudioFrame reverse, near;
    long errors = 0, voiced = 0;
    double probability = 0;
    webrtc::EchoCancellation::Metrics metrics{};
    int median = -1, deviation = -1;
    float poor = 0;
    const double start = cpu_ms();
    for (long i = 0; i < frames; i++) {
        const size_t at = size_t(i) % loop;
        const int16_t *f = &far[at * kFrame * far_channels];
        reverse.UpdateFrame(0, 0, nullptr, kFrame, kRate, webrtc::AudioFrame::kNormalSpeech,
                            webrtc::AudioFrame::kVadUnknown, 1);
        if (far_channels == 1) {
            std::memcpy(reverse.data_, f, sizeof(int16_t) * kFrame);
        } else {
            for (int k = 0; k < kFrame; k++) reverse.data_[k] = int16_t((int32_t(f[2 * k]) + f[2 * k + 1]) / 2);
        }
        if (apm->ProcessReverseStream(&reverse) != 0) errors++;

        near.UpdateFrame(0, 0, &capture[at * kFrame], kFrame, kRate, webrtc::AudioFrame::kNormalSpeech,
                         webrtc::AudioFrame::kVadUnknown, 1);
        apm->set_stream_delay_ms(delay_ms);
        if (apm->ProcessStream(&near) != 0) errors++;
        voiced += apm->voice_detection()->stream_has_voice();
        probability += apm->noise_suppression()->speech_probability();
        if (i % kMetricsEveryFrames == kMetricsEveryFrames - 1) {
            apm->echo_cancellation()->GetMetrics(&metrics);
            apm->echo_cancellation()->GetDelayMetrics(&median, &deviation, &poor);
        }
    }
    const double used = cpu_ms() - start;
    std::fprintf(stderr,
                 "apm_cpu: %.1f s of audio, %.1f ms CPU, %ld errors, %ld voiced blocks, mean speech probability "
                 "%.2f, AEC ERLE %d dB ERL %d dB delay median %d ms\n",
                 frames / 100.0, used, errors, voiced, probability / double(frames),
                 metrics.echo_return_loss_enhancement.average, metrics.echo_return_loss.average, median);
    if (errors > 0) {
        std::fprintf(stderr, "apm_cpu: the module returned errors\n");
        return 1;
    }
    std::printf("{\"apm_bare_cpu_ms_per_s\": %.3f}\n", used / (frames / 100.0));
    return 0;
}
