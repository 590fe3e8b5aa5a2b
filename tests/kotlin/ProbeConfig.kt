/*
 * The Java facade from Kotlin (tests/kotlin-facade.py): the probe opened
 * through Probe.Config, as the Javadoc of Probe.Config shows it, and the
 * builder's refusals, compiled by kotlinc against lastwords.jar.
 *
 * usage: ProbeConfigKt DIR
 * Prints "ring PATH" and "ok N" (N checks passed), or "FAIL: what" lines
 * and exits 1.
 */
import dev.lastwords.ErrorClass
import dev.lastwords.Probe
import dev.lastwords.Stage
import java.io.File

var passed = 0
var failed = 0

fun check(ok: Boolean, what: String) {
    if (ok) passed++ else { failed++; println("FAIL: $what") }
}

/* Whether block throws an exception of class T whose message holds text. */
inline fun <reified T : Throwable> throws(text: String, block: () -> Unit): Boolean {
    try {
        block()
    } catch (e: Throwable) {
        return e is T && (e.message ?: "").contains(text)
    }
    return false
}

fun main(args: Array<String>) {
    val filesDir = File(args[0])
    val name = "com.example.kt:inference"

    check(throws<IllegalArgumentException>("memoryBudgetKb") {
        Probe.Config.builder(filesDir, name).memoryBudgetKb(-1)
    }, "a negative budget is refused at memoryBudgetKb()")
    check(throws<IllegalArgumentException>("samplerPeriodMs") {
        Probe.Config.builder(filesDir, name).samplerPeriodMs(-20)
    }, "a negative period is refused at samplerPeriodMs()")
    check(throws<IllegalArgumentException>("processName") {
        Probe.Config.builder(filesDir, "")
    }, "an empty process name is refused at builder()")

    val probe = Probe.open(
        Probe.Config.builder(filesDir, name)
            .appVersion(312L)
            .memoryBudgetKb(512 * 1024)
            .samplerPeriodMs(20)
            .build())
    try {
        println("ring " + probe.path())
        probe.candidate("model-kt-v1")
        probe.begin(Stage.LOAD)
        probe.end(Stage.LOAD, ErrorClass.NONE)
        Thread.sleep(60) /* a few sampler periods */
        probe.begin(Stage.INFERENCE)
        probe.end(Stage.INFERENCE, ErrorClass.NONE)
    } finally {
        probe.close()
    }
    println("ok $passed")
    if (failed > 0)
        System.exit(1)
}
