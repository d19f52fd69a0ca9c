package dev.countersign.contracts.catalogue;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;

/** An action kind the {@link ActionCatalogue} declares (null passes: say {@code @NotNull} where it must be given). */
@Documented
@Constraint(validatedBy = KnownKind.Validator.class)
@Target({ElementType.TYPE_USE, ElementType.FIELD, ElementType.PARAMETER, ElementType.RECORD_COMPONENT})
@Retention(RetentionPolicy.RUNTIME)
public @interface KnownKind {

    String message() default "must be an action kind of the catalogue";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    /** Looks the kind up in the catalogue. */
    final class Validator implements ConstraintValidator<KnownKind, String> {

        @Override
        public boolean isValid(String kind, ConstraintValidatorContext context) {
            return kind == null || ActionCatalogue.find(kind).isPresent();
        }
    }
}
