package dev.countersign.executor.imports;

import java.math.BigDecimal;

import jakarta.validation.constraints.Positive;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Bounds of a CSV import (see docs/security/imports.md). */
@ConfigMapping(prefix = "countersign.imports")
public interface ImportsConfig {

    /**
     * The largest amount one imported row may carry; a file with a larger row is refused whole. The catalogue's bound
     * for an expense (10000000.00) applies as well, so a larger setting changes nothing beyond it.
     */
    @WithDefault("100000.00")
    @Positive
    BigDecimal maxRowAmount();

    /**
     * The catalogue kind an imported line is checked as (its parameters: {@code walletId}, {@code occurredOn},
     * {@code amount}, {@code category}, {@code description}) and whose tier rule judges it; set in
     * application.properties, so no import code names a kind. Start-up fails if its declaration lacks one of them.
     */
    String kind();
}
