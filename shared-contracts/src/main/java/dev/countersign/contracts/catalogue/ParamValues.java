package dev.countersign.contracts.catalogue;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.UUID;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;

/** Turns one raw parameter value into its normal form, or says why it cannot. */
final class ParamValues {

    /** Ten million in any currency: far above any sane single expense, low enough to catch a misplaced comma. */
    static final BigDecimal MAX_MONEY = new BigDecimal("10000000.00");

    private ParamValues() {
    }

    static Result normalise(ParamSpec spec, JsonNode value) {
        if (!value.isTextual() && !(spec.type() == ParamType.MONEY && value.isNumber())) {
            return Result.error("must be a string");
        }
        String text = value.asText();
        return switch (spec.type()) {
            case UUID -> uuid(text);
            case MONEY -> money(value.isNumber() ? value.decimalValue().toPlainString() : text.trim());
            case DATE -> date(text.trim());
            case TEXT -> text(text, spec.maxLength(), false);
            case LINES -> text(text.replace("\r\n", "\n"), spec.maxLength(), true);
        };
    }

    private static Result uuid(String text) {
        try {
            UUID parsed = UUID.fromString(text.trim());
            String canonical = parsed.toString();
            return canonical.equals(text.trim().toLowerCase(Locale.ROOT))
                    ? Result.ok(canonical)
                    : Result.error("must be a UUID like 123e4567-e89b-12d3-a456-426614174000");
        } catch (IllegalArgumentException e) {
            return Result.error("must be a UUID like 123e4567-e89b-12d3-a456-426614174000");
        }
    }

    private static Result money(String text) {
        try {
            BigDecimal amount = new BigDecimal(text);
            if (amount.signum() <= 0) {
                return Result.error("must be greater than 0");
            }
            if (amount.stripTrailingZeros().scale() > 2) {
                return Result.error("must have at most two decimal places");
            }
            if (amount.compareTo(MAX_MONEY) > 0) {
                return Result.error("must be at most " + MAX_MONEY.toPlainString());
            }
            return Result.ok(amount.setScale(2).toPlainString());
        } catch (NumberFormatException e) {
            return Result.error("must be a decimal number such as 12.50");
        }
    }

    private static Result date(String text) {
        try {
            return Result.ok(LocalDate.parse(text).toString());
        } catch (DateTimeParseException e) {
            return Result.error("must be a date in the form yyyy-MM-dd");
        }
    }

    private static Result text(String raw, int maxLength, boolean lines) {
        String text = raw.strip();
        if (text.isEmpty()) {
            return Result.error("must not be blank");
        }
        if (text.codePoints().anyMatch(c -> Character.isISOControl(c) && !(lines && c == '\n'))) {
            return Result.error(lines
                    ? "must not contain control characters other than line breaks"
                    : "must not contain control characters");
        }
        int invisible = InvisibleCharacters.first(text);
        if (invisible >= 0) {
            return Result.error(InvisibleCharacters.refusal(invisible));
        }
        if (text.codePointCount(0, text.length()) > maxLength) {
            return Result.error("must be at most %d characters".formatted(maxLength));
        }
        return Result.ok(text);
    }

    record Result(String value, String error) {

        static Result ok(String value) {
            return new Result(value, null);
        }

        static Result error(String message) {
            return new Result(null, message);
        }

        Result ifOk(Consumer<String> action) {
            if (error == null) {
                action.accept(value);
            }
            return this;
        }

        Result ifError(Consumer<String> action) {
            if (error != null) {
                action.accept(error);
            }
            return this;
        }
    }
}
