package dev.countersign.executor.policy;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import jakarta.ws.rs.NameBinding;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.ext.Provider;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.Groups;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.ProblemException;

/**
 * Who may change a tenant's policy: an administrator who is a person. A service principal's token (an integration's)
 * changes no policy, whatever groups it carries (docs/security/authorization.md).
 * <p>
 * A request filter bound to {@link Only}, so the caller is refused before the request body is read or validated:
 * someone who may not change the policy learns nothing about what a valid body looks like, and a bad body from them is
 * 403, not 400. (A Quarkus {@code @PermissionChecker} decides as early, but its refusal left as an empty 403, not
 * problem+json.)
 */
@Provider
@PolicyAdministrators.Only
public class PolicyAdministrators implements ContainerRequestFilter {

    /** Marks the resource methods only an administrator who is a person may call. */
    @NameBinding
    @Target({ElementType.TYPE, ElementType.METHOD})
    @Retention(RetentionPolicy.RUNTIME)
    public @interface Only {
    }

    private final CurrentUser user;

    public PolicyAdministrators(CurrentUser user) {
        this.user = user;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        if (user.isService()) {
            throw new ProblemException(ErrorCode.FORBIDDEN,
                    "A service principal cannot change the tenant's policy: it needs an administrator who is a person.");
        }
        user.requireGroup(Groups.ADMIN);
    }
}
