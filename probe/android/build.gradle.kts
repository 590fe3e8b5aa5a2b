// The probe as an Android library module: liblastwords.so and
// liblastwords_jni.so from ../CMakeLists.txt for each ABI, and the Java
// facade (dev.lastwords) with its Android helpers (dev.lastwords.android)
// compiled from ../java against the app's own SDK. Copy the tree (or add it
// as a git submodule), then in the app's settings.gradle.kts:
//
//     include(":lastwords")
//     project(":lastwords").projectDir = file("third_party/lastwords/probe/android")
//
// and in the app module: dependencies { implementation(project(":lastwords")) }.
// The enums of ../java/dev/lastwords (Stage.java, ...) are committed, made
// from include/lastwords/vocab.h (probe/java/enums.py), so nothing is
// generated here. This file is checked, not run, by tests/gradle-module.py:
// no Gradle or Android SDK is on the machines that test the project (README).
plugins {
    id("com.android.library")
}

android {
    namespace = "dev.lastwords"
    compileSdk = 35

    defaultConfig {
        // The probe needs API 21 (README, "Add lastwords to an Android app").
        minSdk = 21
        // Keeps the facade's native methods for R8 in the app that uses it.
        consumerProguardFiles("consumer-rules.pro")
        ndk {
            // Every Android ABI. The guide says how each is tested here
            // ("What is tested here, and what is not"): the 32-bit ones with
            // Debian's toolchains (tests/cross-32.sh), not the NDK's.
            abiFilters += listOf("arm64-v8a", "armeabi-v7a", "x86_64", "x86")
        }
        externalNativeBuild {
            cmake {
                // 16 KB pages (Android 15); ../CMakeLists.txt links with
                // -z max-page-size=16384 on every ABI as well.
                arguments += listOf("-DANDROID_SUPPORT_FLEXIBLE_PAGE_SIZES=ON")
            }
        }
    }

    externalNativeBuild {
        cmake {
            path = file("../CMakeLists.txt")
            version = "3.22.1"
        }
    }

    sourceSets {
        getByName("main") {
            java.srcDirs("../java")
            manifest.srcFile("AndroidManifest.xml")
        }
    }

    compileOptions {
        // The facade is written at the Java 8 language level.
        sourceCompatibility = JavaVersion.VERSION_1_8
        targetCompatibility = JavaVersion.VERSION_1_8
    }
}
